package tenant_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// craftedExport returns an export file made to reach outside tenant expatk: an
// object in another tenant's upstream namespace, a namespace in that
// tenant's prefix, the tenant label naming it, the platform's Pod Security
// label, a binding of the superuser group, an admission policy named as
// the platform's, that tenant's record and the node; and one harmless object.
func craftedExport(node string) string {
	return `apiVersion: v1
kind: ConfigMap
metadata: {name: planted, namespace: expvic-default}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: claimed, namespace: default, labels: {zoo.kubectl-zoo.io/tenant: expvic}}
---
apiVersion: v1
kind: Namespace
metadata: {name: default, labels: {pod-security.kubernetes.io/enforce: privileged}}
---
apiVersion: v1
kind: Namespace
metadata: {name: expvic-team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: pwn}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:masters"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: zoo-tenant}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - expression: "false"
---
apiVersion: ` + tenantapi.TenantGVR.GroupVersion().String() + `
kind: Tenant
metadata: {name: expvic}
spec: {admins: [mallory]}
---
apiVersion: v1
kind: Node
metadata: {name: ` + node + `, labels: {owned: "yes"}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: harmless, namespace: default}
data: {ok: "yes"}
`
}

// TestTenantImportConfined imports craftedExport into tenant expatk: each
// object that would reach outside it is refused with the API's error, or
// confined to expatk's prefix, the command fails, and the harmless object
// is imported.
func TestTenantImportConfined(t *testing.T) {
	install(t)
	createTenant(t, "expatk")
	createTenant(t, "expvic")
	admin := framework.AdminClient(t)
	platformPolicy, err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(t.Context(), "zoo-tenant", metav1.GetOptions{})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "crafted.yaml")
	require.NoError(t, os.WriteFile(file, []byte(craftedExport(framework.Cluster().NodeName)), 0o600))

	res := zoo(t, "tenant", "import", "expatk", "-f", file)
	require.Error(t, res.Err, "stdout: %s", res.Stdout)
	for _, refused := range []string{"ConfigMap/planted (namespace expvic-default)", "ConfigMap/claimed (namespace default)",
		"Namespace/default", "ClusterRoleBinding.rbac.authorization.k8s.io/pwn", "Tenant." + translate.APIGroup + "/expvic", "Node/" + framework.Cluster().NodeName} {
		assert.Contains(t, res.Stderr, "refused: "+refused+": ", "stderr: %s", res.Stderr)
	}
	assert.Contains(t, res.Stderr, "error: tenant expatk refused 6 of 9 objects")
	assert.Contains(t, res.Stdout, "ConfigMap/harmless (namespace default) created\n")

	_, err = admin.CoreV1().ConfigMaps("expvic-default").Get(t.Context(), "planted", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a ConfigMap planted in the victim's namespace: %v", err)
	_, err = admin.CoreV1().Namespaces().Get(t.Context(), "expvic-team", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a namespace in the victim's prefix: %v", err)
	ns, err := admin.CoreV1().Namespaces().Get(t.Context(), "expatk-expvic-team", metav1.GetOptions{})
	require.NoError(t, err, "the namespace is the importer's own")
	assert.Equal(t, "expatk", ns.Labels[translate.TenantLabel])
	after, err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(t.Context(), "zoo-tenant", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, platformPolicy.ResourceVersion, after.ResourceVersion, "the platform's policy is untouched")
	own, err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(t.Context(), "expatk-zoo-tenant", metav1.GetOptions{})
	require.NoError(t, err, "the policy is the importer's own")
	assert.Equal(t, "expatk", own.Labels[translate.TenantLabel])
	client, err := tenantctl.NewClient(framework.Cluster().Config)
	require.NoError(t, err)
	victim, _, err := client.GetTenant(t.Context(), "expvic")
	require.NoError(t, err)
	assert.Equal(t, []string{"admin"}, victim.Tenant.Spec.Admins)
	node, err := admin.CoreV1().Nodes().Get(t.Context(), framework.Cluster().NodeName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, node.Labels, "owned")
	cm, err := admin.CoreV1().ConfigMaps("expatk-default").Get(t.Context(), "harmless", metav1.GetOptions{})
	require.NoError(t, err, "what the tenant may write is imported")
	assert.Equal(t, map[string]string{"ok": "yes"}, cm.Data)
}
