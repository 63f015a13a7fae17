package tenant_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const (
	byRBAC      = "is forbidden: User"
	byAdmission = "ValidatingAdmissionPolicy 'zoo-tenant'"
	byIdentity  = "ValidatingAdmissionPolicy 'zoo-identity'"
)

// attack is one thing a tenant identity must not be able to do upstream.
type attack struct {
	name  string
	stdin string
	args  []string
	// denial is a substring of the denial that names the layer refusing it.
	denial string
}

// upstreamSnapshot captures everything the attacks aim at, to prove that
// nothing changed.
func upstreamSnapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"get", "namespaces", "-o", "jsonpath={range .items[*]}{.metadata.name} {.metadata.resourceVersion} {.metadata.labels}{\"\\n\"}{end}"},
		{"get", "secrets", "-A", "-o", "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {.metadata.resourceVersion}{\"\\n\"}{end}"},
		{"get", "rolebindings,clusterrolebindings,clusterroles", "-A", "-o", "jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name} {.metadata.resourceVersion}{\"\\n\"}{end}"},
		{"get", "crd,validatingadmissionpolicies,validatingadmissionpolicybindings,tenants", "-o", "jsonpath={range .items[*]}{.kind} {.metadata.name} {.metadata.generation} {.metadata.labels}{\"\\n\"}{end}"},
		{"get", "configmaps", "-A", "-l", "zoo.kubectl-zoo.io/tenant", "-o", "name"},
	} {
		b.WriteString(framework.Kubectl(t, args...))
	}
	return b.String()
}

// outsidePV is a PersistentVolume of tenant acme with the given source.
func outsidePV(source string) string {
	return `apiVersion: v1
kind: PersistentVolume
metadata: {name: acme-outside, labels: {zoo.kubectl-zoo.io/tenant: acme}}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: acme-fast
  ` + source + "\n"
}

// TestAttackSuite uses tenant identities DIRECTLY against the upstream — a
// tenant user, a tenant admin, a ServiceAccount token from a tenant
// namespace, mixed and non-existent tenants — and checks that every attack is
// denied by the layer meant to deny it, and that nothing changed.
func TestAttackSuite(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	allowStaticVolumes(t, "acme", "beta")
	framework.Kubectl(t, "create", "secret", "generic", "topsecret", "-n", "beta-default", "--from-literal=k=v")
	dev := []string{"--as", "zoo:acme:dev", "--as-group", "zoo:tenant:acme"}
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}

	// Positive controls: what a tenant may do works, so the denials below
	// are the boundary and not a broken setup.
	mustKubectl := func(args ...string) {
		t.Helper()
		res := kubectl(t, "", args...)
		require.NoError(t, res.Err, "kubectl %v: %s", args, res.Stderr)
	}
	mustKubectl(append(admin, "create", "configmap", "mine", "-n", "acme-default")...)
	mustKubectl(append(admin, "run", "web", "-n", "acme-default", "--image=busybox", "--restart=Never")...)
	mustKubectl(append(admin, "create", "service", "clusterip", "web", "-n", "acme-default", "--tcp=80:80")...)
	mustKubectl(append(admin, "create", "quota", "q", "-n", "acme-default", "--hard=pods=50")...)
	mustKubectl(append(admin, "create", "serviceaccount", "builder", "-n", "acme-default")...)
	mustKubectl(append(admin, "create", "rolebinding", "builder", "-n", "acme-default",
		"--clusterrole="+tenantapi.TenantAdminClusterRole, "--serviceaccount=acme-default:builder")...)
	mustKubectl(append(admin, "create", "rolebinding", "dev-view", "-n", "acme-default", "--clusterrole=acme-view", "--user=zoo:acme:dev")...)
	token := strings.TrimSpace(framework.Kubectl(t, "create", "token", "builder", "-n", "acme-default"))
	sa := tokenKubeconfig(t, token)
	res := kubectlWith(t, sa, "", "create", "configmap", "from-sa", "-n", "acme-default")
	require.NoError(t, res.Err, res.Stderr)
	assert.Equal(t, "system:serviceaccount:acme-default:builder", strings.TrimSpace(
		kubectlWith(t, sa, "", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").Stdout))

	// A namespace the tenant creates (as the proxy will: create it, make its
	// policy objects with the proxy's own identity — until its quota exists
	// it admits no create at all, zoo-tenant-policy-objects — then apply
	// NamespaceRBAC as the admin) gives its admins rights there, and only
	// there.
	ctx := t.Context()
	adminClient, _ := impersonating(t, "zoo:acme:admin", "zoo:tenant:acme", translate.AdminsGroup)
	tenant := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: tenantapi.TenantSpec{Admins: []string{"admin"}}}
	freshLabels := tenantapi.OwnerLabels(translate.MustTenant("acme"))
	freshLabels[translate.PodSecurityEnforce] = translate.DefaultPodSecurityLevel // zoo-tenant-metadata asks for the level
	_, err := adminClient.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "acme-fresh", Labels: freshLabels}}, metav1.CreateOptions{})
	require.NoError(t, err)
	zc, err := tenantctl.NewClient(framework.Cluster().Config)
	require.NoError(t, err)
	require.NoError(t, policyctl.New(zc.Client).ReconcileNamespacePolicyObjects(ctx, "acme", "acme-fresh"))
	rbs, err := platformobj.NamespaceRBAC(tenant, "acme-fresh")
	require.NoError(t, err)
	for _, rb := range rbs {
		_, err := adminClient.RbacV1().RoleBindings(rb.Namespace).Create(ctx, rb, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		return kubectl(t, "", append(admin, "create", "configmap", "fresh", "-n", "acme-fresh")...).Err == nil
	}, 10*time.Second, 100*time.Millisecond, "the admin must get rights in its new namespace")
	_, err = platformobj.NamespaceRBAC(tenant, "beta-default")
	require.Error(t, err)
	for _, rb := range rbs {
		rb.Namespace = "beta-default"
		_, err := adminClient.RbacV1().RoleBindings(rb.Namespace).Create(ctx, rb, metav1.CreateOptions{})
		require.Error(t, err, "the admin must not grant itself rights in another tenant's namespace")
		assert.Contains(t, err.Error(), "tenant acme may only write in namespaces whose name starts with acme-")
	}

	// Platform objects that happen to carry the tenant's prefix, made by the
	// cluster admin: ownership is the label, not the name.
	framework.Kubectl(t, "create", "namespace", "acme-platform")
	framework.Kubectl(t, "create", "clusterrole", "acme-platform-reader", "--verb=get", "--resource=pods")

	before := upstreamSnapshot(t)
	crd := func(name, group string) string {
		return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + name + `.` + group + `
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {api-approved.kubernetes.io: "unapproved, test only"}
spec:
  group: ` + group + `
  scope: Namespaced
  names: {plural: ` + name + `, kind: Evil}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`
	}
	sneakyRole := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: acme-sneaky
  labels: {zoo.kubectl-zoo.io/tenant: acme, rbac.authorization.k8s.io/aggregate-to-admin: "true"}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
`
	crbWithSubjects := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: acme-everything
  labels: {zoo.kubectl-zoo.io/tenant: acme}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: acme-cluster-admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "zoo:acme:admin"}]
`
	label := "zoo.kubectl-zoo.io/tenant"
	attacks := []attack{
		{name: "user reads another tenant's Secret", args: append(dev, "get", "secret", "topsecret", "-n", "beta-default"), denial: byRBAC},
		{name: "user lists all Secrets", args: append(dev, "get", "secrets", "-A"), denial: byRBAC},
		{name: "user creates an un-prefixed namespace", args: append(dev, "create", "namespace", "evil"), denial: byRBAC},
		{name: "admin reads another tenant's Secret", args: append(admin, "get", "secret", "topsecret", "-n", "beta-default"), denial: byRBAC},
		{name: "admin lists all Secrets", args: append(admin, "get", "secrets", "-A"), denial: byRBAC},
		{name: "admin lists kube-system Secrets", args: append(admin, "get", "secrets", "-n", "kube-system"), denial: byRBAC},
		{name: "admin creates an un-prefixed namespace", args: append(admin, "create", "namespace", "evil"), denial: byAdmission},
		{name: "admin creates an unlabeled namespace", args: append(admin, "create", "namespace", "acme-unlabeled"), denial: byAdmission},
		{name: "admin deletes another tenant's namespace", args: append(admin, "delete", "namespace", "beta-default"), denial: byAdmission},
		{name: "admin deletes kube-node-lease", args: append(admin, "delete", "namespace", "kube-node-lease"), denial: byAdmission},
		{name: "admin creates a CRD in another tenant's group", stdin: crd("evils", "beta-stable.example.com"), args: append(admin, "create", "-f", "-"), denial: byAdmission},
		{name: "admin creates a CRD in a built-in group", stdin: crd("evils", "networking.k8s.io"), args: append(admin, "create", "-f", "-"), denial: byAdmission},
		{name: "admin binds cluster-admin cluster-wide", args: append(admin, "create", "clusterrolebinding", "pwn", "--clusterrole=cluster-admin", "--user=zoo:acme:admin"), denial: byAdmission},
		{name: "admin makes an upstream-wide ClusterRoleBinding", stdin: crbWithSubjects, args: append(admin, "create", "-f", "-"), denial: byAdmission},
		{name: "admin binds cluster-admin in its namespace", args: append(admin, "create", "rolebinding", "pwn", "-n", "acme-default", "--clusterrole=cluster-admin", "--user=zoo:acme:admin"), denial: byAdmission},
		{name: "admin grants another tenant's ServiceAccount", args: append(admin, "create", "rolebinding", "pwn", "-n", "acme-default", "--clusterrole=acme-view", "--serviceaccount=beta-default:default"), denial: byAdmission},
		{name: "admin aggregates into the cluster's admin role", stdin: sneakyRole, args: append(admin, "create", "-f", "-"), denial: byAdmission},
		{name: "admin edits the admission policy", args: append(admin, "patch", "validatingadmissionpolicy", "zoo-tenant", "--type=merge", "-p", `{"spec":{"failurePolicy":"Ignore"}}`), denial: byRBAC},
		{name: "admin deletes the admission binding", args: append(admin, "delete", "validatingadmissionpolicybinding", "zoo-tenant"), denial: byRBAC},
		{name: "admin edits its Tenant", args: append(admin, "patch", "tenant", "acme", "--type=merge", "-p", `{"spec":{"admins":["dev"]}}`), denial: byRBAC},
		{name: "admin deletes another Tenant", args: append(admin, "delete", "tenant", "beta"), denial: byRBAC},
		{name: "admin relabels its namespace into another tenant", args: append(admin, "label", "namespace", "acme-default", label+"=beta", "--overwrite"), denial: byAdmission},
		{name: "admin removes the ownership label", args: append(admin, "label", "namespace", "acme-default", label+"-"), denial: byAdmission},
		{name: "admin labels another tenant's namespace", args: append(admin, "label", "namespace", "beta-default", "pwned=true"), denial: byAdmission},
		{name: "admin relabels a ConfigMap into another tenant", args: append(admin, "label", "configmap", "mine", "-n", "acme-default", label+"=beta"), denial: byAdmission},
		{name: "admin grants itself a platform namespace that has its prefix", args: append(admin, "create", "rolebinding", "pwn", "-n", "acme-platform",
			"--clusterrole="+tenantapi.TenantAdminClusterRole, "--user=zoo:acme:admin"), denial: "is not labeled zoo.kubectl-zoo.io/tenant=acme"},
		{name: "admin labels a platform namespace that has its prefix as its own", args: append(admin, "label", "namespace", "acme-platform", label+"=acme"),
			denial: "may only change cluster-scoped objects labeled"},
		{name: "admin deletes a platform ClusterRole that has its prefix", args: append(admin, "delete", "clusterrole", "acme-platform-reader"),
			denial: "may only change cluster-scoped objects labeled"},
		{name: "admin rewrites a platform ClusterRole that has its prefix", args: append(admin, "patch", "clusterrole", "acme-platform-reader", "--type=json",
			"-p", `[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]`), denial: "may only change cluster-scoped objects labeled"},
		{name: "admin rewrites its pod's status (the address pods/proxy dials)", args: append(admin, "patch", "pod", "web", "-n", "acme-default",
			"--subresource=status", "--type=merge", "-p", `{"status":{"podIP":"10.9.9.9","podIPs":[{"ip":"10.9.9.9"}]}}`), denial: "tenants may not change podIP"},
		{name: "admin fakes its quota's usage", args: append(admin, "patch", "resourcequota", "q", "-n", "acme-default",
			"--subresource=status", "--type=merge", "-p", `{"status":{"used":{"pods":"0"}}}`), denial: "is written by the shared cluster's controllers"},
		{name: "admin proxies through its pod", args: append(admin, "get", "--raw", "/api/v1/namespaces/acme-default/pods/web/proxy/"), denial: "may not use pods/proxy"},
		{name: "admin proxies through a service", args: append(admin, "get", "--raw", "/api/v1/namespaces/acme-default/services/web:80/proxy/"), denial: "may not use services/proxy"},
		{name: "admin makes a volume on a machine's root", stdin: outsidePV(`hostPath: {path: /}`), args: append(admin, "create", "-f", "-"),
			denial: "may not be on a path of the machines"},
		{name: "admin makes a volume whose driver reads another tenant's secret", stdin: outsidePV(`csi: {driver: d.example.com, volumeHandle: h, nodePublishSecretRef: {name: gold, namespace: beta-default}}`),
			args: append(admin, "create", "-f", "-"), denial: "the namespaces tenant acme names must start with acme-"},
		{name: "admin makes a StorageClass whose provisioner reads the platform's secret", stdin: `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: acme-sneaky, labels: {zoo.kubectl-zoo.io/tenant: acme}}
provisioner: d.example.com
parameters: {csi.storage.k8s.io/provisioner-secret-name: creds, csi.storage.k8s.io/provisioner-secret-namespace: kube-system}
`, args: append(admin, "create", "-f", "-"), denial: "names must be in namespaces starting with acme-"},
		{name: "admin captures traffic with external IPs", stdin: `apiVersion: v1
kind: Service
metadata: {name: mitm, namespace: acme-default}
spec: {ports: [{port: 443}], externalIPs: [203.0.113.10]}
`, args: append(admin, "create", "-f", "-"), denial: "may not set spec.externalIPs"},
		{name: "admin makes the API server dial a conversion URL", stdin: strings.Replace(crd("dials", "acme-dial.example.com"), "  scope: Namespaced",
			"  scope: Namespaced\n  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: \"https://203.0.113.11/convert\"}}}", 1),
			args: append(admin, "create", "-f", "-"), denial: "may not name a conversion webhook URL"},
		{name: "identity of two tenants", args: []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins", "--as-group", "zoo:tenant:beta", "create", "configmap", "two", "-n", "acme-default"}, denial: "ValidatingAdmissionPolicy 'zoo-"},
		{name: "identity without its tenant group", args: []string{"--as", "zoo:acme:admin", "create", "configmap", "nogroup", "-n", "acme-default"}, denial: byIdentity},
		{name: "identity of a tenant that does not exist", args: []string{"--as", "zoo:ghost:admin", "--as-group", "zoo:tenant:ghost", "create", "namespace", "ghost-x"}, denial: byRBAC},
		{name: "admin identity of a tenant that does not exist", stdin: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: ghost-x, labels: {" + label + ": ghost}}\n",
			args: []string{"--as", "zoo:ghost:admin", "--as-group", "zoo:tenant:ghost", "--as-group", translate.AdminsGroup, "create", "-f", "-"}, denial: "tenant ghost does not exist"},
		{name: "admins group without a tenant", args: []string{"--as", "mallory", "--as-group", translate.AdminsGroup, "create", "namespace", "mallory-x"}, denial: "ValidatingAdmissionPolicy 'zoo-"},
		{name: "admin deletes its kube-system", args: append(admin, "delete", "namespace", "acme-kube-system"), denial: "this namespace may not be deleted"},
		{name: "admin deletes its default namespace", args: append(admin, "delete", "namespace", "acme-default"), denial: "this namespace may not be deleted"},
		{name: "admin deletes the tenant's membership", args: append(admin, "delete", "rolebinding", tenantapi.MembershipRoleBinding, "-n", "acme-kube-system"),
			denial: "kubectl-zoo keeps it"},
		{name: "admin binds the registry identity to forge a membership", args: append(admin, "create", "rolebinding", "forged", "-n", "acme-default",
			"--clusterrole="+tenantapi.TenantAdminClusterRole, "--serviceaccount="+tenantapi.RegistryNamespace+":"+tenantapi.RegistryServiceAccount), denial: byAdmission},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			res := kubectl(t, a.stdin, a.args...)
			require.Error(t, res.Err, "attack succeeded: %s", res.Stdout)
			assert.Contains(t, res.Stderr, a.denial)
		})
	}
	saAttacks := []attack{
		{name: "ServiceAccount reads another tenant's Secret", args: []string{"get", "secret", "topsecret", "-n", "beta-default"}, denial: byRBAC},
		{name: "ServiceAccount lists all Secrets", args: []string{"get", "secrets", "-A"}, denial: byRBAC},
		{name: "ServiceAccount creates an un-prefixed namespace", args: []string{"create", "namespace", "evil"}, denial: byRBAC},
		{name: "ServiceAccount deletes another tenant's namespace", args: []string{"delete", "namespace", "beta-default"}, denial: byRBAC},
		{name: "ServiceAccount creates a CRD", stdin: crd("evils", "beta-stable.example.com"), args: []string{"create", "-f", "-"}, denial: byRBAC},
		{name: "ServiceAccount binds cluster-admin cluster-wide", args: []string{"create", "clusterrolebinding", "pwn", "--clusterrole=cluster-admin", "--serviceaccount=acme-default:builder"}, denial: byRBAC},
		{name: "ServiceAccount binds cluster-admin in its namespace", args: []string{"create", "rolebinding", "pwn", "-n", "acme-default", "--clusterrole=cluster-admin", "--serviceaccount=acme-default:builder"}, denial: byAdmission},
		{name: "ServiceAccount edits the admission policy", args: []string{"delete", "validatingadmissionpolicy", "zoo-tenant"}, denial: byRBAC},
		{name: "ServiceAccount relabels a ConfigMap into another tenant", args: []string{"label", "configmap", "mine", "-n", "acme-default", label + "=beta"}, denial: byAdmission},
		{name: "ServiceAccount rewrites a pod's status", args: []string{"patch", "pod", "web", "-n", "acme-default",
			"--subresource=status", "--type=merge", "-p", `{"status":{"podIP":"10.9.9.9","podIPs":[{"ip":"10.9.9.9"}]}}`}, denial: "tenants may not change podIP"},
		{name: "ServiceAccount proxies through a pod", args: []string{"get", "--raw", "/api/v1/namespaces/acme-default/pods/web/proxy/"}, denial: "may not use pods/proxy"},
		{name: "ServiceAccount relabels its own namespace into another tenant", args: []string{"label", "namespace", "acme-default", label + "=beta", "--overwrite"},
			denial: byAdmission},
		{name: "ServiceAccount removes its namespace's ownership label", args: []string{"label", "namespace", "acme-default", label + "-"}, denial: byAdmission},
		{name: "ServiceAccount writes into another tenant's namespace", args: []string{"create", "configmap", "x", "-n", "beta-default"}, denial: byRBAC},
	}
	for _, a := range saAttacks {
		t.Run(a.name, func(t *testing.T) {
			res := kubectlWith(t, sa, a.stdin, a.args...)
			require.Error(t, res.Err, "attack succeeded: %s", res.Stdout)
			assert.Contains(t, res.Stderr, a.denial)
		})
	}
	assert.Equal(t, before, upstreamSnapshot(t), "the attacks changed the upstream")
	assert.Equal(t, "dg==", framework.Kubectl(t, "get", "secret", "topsecret", "-n", "beta-default", "-o", "jsonpath={.data.k}"))
	framework.Kubectl(t, "delete", "namespace", "acme-platform", "--wait=false")
	framework.Kubectl(t, "delete", "clusterrole", "acme-platform-reader")
}
