package tenant_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestTenantBadInput: every bad input fails with one clear line, a non-zero
// exit, and leaves nothing behind.
func TestTenantBadInput(t *testing.T) {
	install(t)
	framework.Kubectl(t, "create", "namespace", "clash-default")
	t.Cleanup(func() { kubectl(t, "", "delete", "namespace", "clash-default", "--wait=false") })
	// A namespace that merely carries the prefix would fall under the tenant.
	framework.Kubectl(t, "create", "namespace", "certs-manager")
	t.Cleanup(func() { kubectl(t, "", "delete", "namespace", "certs-manager", "--wait=false") })

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"reserved kube", []string{"tenant", "create", "kube"}, `tenant name "kube" is reserved`},
		{"reserved system", []string{"tenant", "create", "system"}, `tenant name "system" is reserved`},
		{"reserved tenant", []string{"tenant", "create", "tenant"}, `tenant name "tenant" is reserved`},
		{"reserved zoo", []string{"tenant", "create", "zoo"}, `tenant name "zoo" is reserved`},
		{"dash", []string{"tenant", "create", "kube-s"}, "may contain only lower-case letters a-z and digits 0-9"},
		{"upper case", []string{"tenant", "create", "Acme"}, "must start with a lower-case letter"},
		{"too long", []string{"tenant", "create", "abcdefghijklm"}, "longer than 12 characters"},
		{"empty", []string{"tenant", "create", ""}, "must not be empty"},
		{"duplicate admin", []string{"tenant", "create", "dupadm", "--admin", "a", "--admin", "a"}, `admin "a" is given twice`},
		{"namespace taken", []string{"tenant", "create", "clash"}, "namespace clash-default already exists and does not belong to tenant"},
		{"prefix taken", []string{"tenant", "create", "certs"}, "namespace certs-manager already exists and does not belong to tenant"},
		{"no permission", []string{"--as", "nobody", "tenant", "create", "noperm"}, "no permission to manage tenants"},
		{"delete reserved", []string{"tenant", "delete", "kube"}, "is reserved"},
		{"delete missing", []string{"tenant", "delete", "nosuch"}, `tenant "nosuch" not found`},
		{"get missing", []string{"tenant", "get", "nosuch"}, `tenant "nosuch" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			framework.RequireOneLineError(t, zoo(t, tc.args...), tc.want)
		})
	}
	// Nothing half-created.
	for _, name := range []string{"kube", "system", "tenant", "zoo", "dupadm", "clash", "certs", "noperm"} {
		res := kubectl(t, "", "get", "tenant", name)
		assert.Error(t, res.Err, "tenant %s must not exist", name)
	}
	ls := framework.Kubectl(t, "get", "namespaces", "-l", "zoo.kubectl-zoo.io/tenant in (kube,system,tenant,zoo,dupadm,clash,certs,noperm)", "-o", "name")
	assert.Empty(t, strings.TrimSpace(ls))
	cr := framework.Kubectl(t, "get", "clusterroles", "-l", "zoo.kubectl-zoo.io/tenant in (clash,certs,noperm)", "-o", "name")
	assert.Empty(t, strings.TrimSpace(cr))
}

// TestTenantCreateEnforcesAtOnce: when create returns, the tenant's boundary
// is already enforced. (How fast create is, is measured by `make bench`, not
// asserted here: timings on a shared machine are noise.)
func TestTenantCreateEnforcesAtOnce(t *testing.T) {
	install(t)
	start := time.Now()
	createTenant(t, "speedy")
	t.Logf("tenant create took %s", time.Since(start))
	res := kubectl(t, "", "--as", "zoo:speedy:admin", "--as-group", "zoo:tenant:speedy", "--as-group", "zoo:admins", "create", "namespace", "notspeedy")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "tenant speedy may only write")
}

// TestTenantCreateIsIdempotent: create again reconciles (new admins) and
// repairs what was removed.
func TestTenantCreateIsIdempotent(t *testing.T) {
	install(t)
	createTenant(t, "idem")
	framework.Kubectl(t, "delete", "clusterrole", "idem-view")
	// A namespace the tenant made itself gets the new admins too.
	res := kubectl(t, "", "--as", "zoo:idem:admin", "--as-group", "zoo:tenant:idem", "--as-group", "zoo:admins", "create", "namespace", "idem-own", "--dry-run=client", "-o", "yaml")
	require.NoError(t, res.Err)
	res = kubectl(t, strings.Replace(res.Stdout, "metadata:\n", "metadata:\n  labels: {zoo.kubectl-zoo.io/tenant: idem, pod-security.kubernetes.io/enforce: baseline}\n", 1),
		"--as", "zoo:idem:admin", "--as-group", "zoo:tenant:idem", "--as-group", "zoo:admins", "create", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	out := mustZoo(t, "tenant", "create", "idem", "--admin", "alice", "--admin", "bob")
	assert.Contains(t, out, "tenant/idem configured")
	framework.Kubectl(t, "get", "clusterrole", "idem-view")
	for _, ns := range []string{"idem-default", "idem-kube-system", "idem-own"} {
		subjects := framework.Kubectl(t, "get", "rolebinding", "-n", ns, tenantapi.NamespaceAdminsRoleBinding, "-o", "jsonpath={.subjects[*].name}")
		assert.Equal(t, "zoo:idem:alice zoo:idem:bob", subjects, ns)
	}
	assert.Equal(t, `["alice","bob"]`, framework.Kubectl(t, "get", "tenant", "idem", "-o", "jsonpath={.spec.admins}"))
}

// seed creates, as the tenant's admin directly upstream, objects of every
// sort a tenant owns: a namespace, a ConfigMap, a ClusterRole, a CRD and a
// custom resource.
func seed(t *testing.T, tenant string) {
	t.Helper()
	as := []string{"--as", "zoo:" + tenant + ":admin", "--as-group", "zoo:tenant:" + tenant, "--as-group", "zoo:admins"}
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s-extra
  labels: {zoo.kubectl-zoo.io/tenant: %[1]s, pod-security.kubernetes.io/enforce: baseline}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: %[1]s-default}
data: {owner: %[1]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: %[1]s-viewer
  labels: {zoo.kubectl-zoo.io/tenant: %[1]s}
rules: []
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.%[1]s-stable.example.com
  labels: {zoo.kubectl-zoo.io/tenant: %[1]s}
spec:
  group: %[1]s-stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`, tenant)
	res := kubectl(t, manifest, append(as, "apply", "-f", "-")...)
	require.NoError(t, res.Err, res.Stderr)
	require.Eventually(t, func() bool {
		cr := fmt.Sprintf("apiVersion: %s-stable.example.com/v1\nkind: CronTab\nmetadata: {name: x, namespace: %s-default}\n", tenant, tenant)
		return kubectl(t, cr, append(as, "apply", "-f", "-")...).Err == nil
	}, 30*time.Second, 200*time.Millisecond, "create a CronTab of tenant %s", tenant)
}

// state lists what must survive the deletion of another tenant.
func state(t *testing.T, tenant string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, args := range [][]string{
		{"get", "namespace", tenant + "-default", tenant + "-kube-system", tenant + "-extra"},
		{"get", "configmap", "-n", tenant + "-default", "cfg"},
		{"get", "clusterrole", tenant + "-viewer", tenant + "-admin"},
		{"get", "rolebinding", "-n", tenantapi.MembershipNamespace(translate.MustTenant(tenant)), tenantapi.MembershipRoleBinding},
		{"get", "crd", "crontabs." + tenant + "-stable.example.com"},
		{"get", "crontabs." + tenant + "-stable.example.com", "-n", tenant + "-default", "x"},
		{"get", "tenant", tenant},
	} {
		out[strings.Join(args, " ")] = framework.Kubectl(t, append(args, "-o", "jsonpath={.items[*].metadata.uid}{.metadata.uid}")...)
	}
	return out
}

// TestTenantLifecycle creates tenants whose names are prefixes of each other
// and of system names, lists and inspects them, and deletes them one by one:
// each delete removes exactly what its tenant owns and never anything of
// another tenant or of the cluster.
func TestTenantLifecycle(t *testing.T) {
	install(t)
	tenants := []string{"acme", "acmeb", "kubes", "default"}
	for _, name := range tenants {
		out := mustZoo(t, "tenant", "create", name)
		assert.Contains(t, out, "kubectl zoo serve --tenant "+name)
		seed(t, name)
	}
	// Decoys: prefix without label, label without prefix, prefix without
	// separator. None is acme's.
	decoys := `apiVersion: v1
kind: Namespace
metadata: {name: acme-decoy}
---
apiVersion: v1
kind: Namespace
metadata:
  name: acmeb-decoy
  labels: {zoo.kubectl-zoo.io/tenant: acme}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: acmex-role
  labels: {zoo.kubectl-zoo.io/tenant: acme}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: acme
  labels: {zoo.kubectl-zoo.io/tenant: acme}
rules: []
`
	res := kubectl(t, decoys, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() { kubectl(t, decoys, "delete", "-f", "-", "--wait=false") })

	// list and get.
	table := mustZoo(t, "tenant", "list")
	for _, name := range tenants {
		assert.Regexp(t, "(?m)^"+name+`\s+5\s+Ready\s+awake\s+admin\s+`, table)
	}
	names := mustZoo(t, "tenant", "list", "-o", "name")
	for _, name := range tenants {
		assert.Contains(t, names, "tenant.zoo.kubectl-zoo.io/"+name+"\n")
	}
	var list struct {
		Items []tenantapi.Tenant `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustZoo(t, "tenant", "list", "-o", "json")), &list))
	require.GreaterOrEqual(t, len(list.Items), len(tenants))
	// In chunks of one record (and one namespace) a request: the same.
	assert.Equal(t, names, mustZoo(t, "tenant", "list", "-o", "name", "--chunk-size", "1"))
	chunked := mustZoo(t, "tenant", "list", "--chunk-size", "1")
	for _, name := range tenants {
		assert.Regexp(t, "(?m)^"+name+`\s+5\s+Ready\s+awake\s+admin\s+`, chunked)
	}
	var chunkedList struct {
		Kind  string             `json:"kind"`
		Items []tenantapi.Tenant `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustZoo(t, "tenant", "list", "-o", "json", "--chunk-size", "1")), &chunkedList))
	assert.Equal(t, "TenantList", chunkedList.Kind)
	assert.Len(t, chunkedList.Items, len(list.Items))
	framework.RequireOneLineError(t, zoo(t, "tenant", "list", "--chunk-size", "-1"), "--chunk-size")
	details := mustZoo(t, "tenant", "get", "acme")
	for _, want := range []string{"acme-default", "acme-extra", "zoo:acme:admin", "zoo:tenant:acme", "kubectl zoo serve --tenant acme", "Ready"} {
		assert.Contains(t, details, want)
	}
	assert.NotContains(t, details, "acmeb")
	assert.Contains(t, mustZoo(t, "tenant", "get", "acme", "-o", "yaml"), "kind: Tenant")

	system := []string{"default", "kube-system", "kube-public", "kube-node-lease", "acme-decoy", "acmeb-decoy"}
	systemUIDs := framework.Kubectl(t, append([]string{"get", "namespace"}, append(system, "-o", "jsonpath={.items[*].metadata.uid}")...)...)
	clusterRoles := framework.Kubectl(t, "get", "clusterrole", "cluster-admin", "admin", "edit", "view", "acmex-role", "acme", "zoo-tenant-admin", "-o", "jsonpath={.items[*].metadata.uid}")

	for i, gone := range tenants {
		survivors := tenants[i+1:]
		before := map[string]map[string]string{}
		for _, s := range survivors {
			before[s] = state(t, s)
		}
		out := mustZoo(t, "tenant", "delete", gone, "--timeout", "2m")
		assert.Contains(t, out, "tenant/"+gone+" deleted: 5 namespace(s)")

		// Everything of the deleted tenant is gone.
		for _, ns := range []string{"-default", "-kube-system", "-kube-public", "-kube-node-lease", "-extra"} {
			_, err := framework.AdminClient(t).CoreV1().Namespaces().Get(t.Context(), gone+ns, metav1.GetOptions{})
			assert.True(t, apierrors.IsNotFound(err), "namespace %s%s: %v", gone, ns, err)
		}
		for _, args := range [][]string{
			{"clusterrole", gone + "-viewer"}, {"clusterrole", gone + "-admin"},
			{"rolebinding", "-n", gone + "-kube-system", tenantapi.MembershipRoleBinding}, {"crd", "crontabs." + gone + "-stable.example.com"},
			{"tenant", gone},
		} {
			res := kubectl(t, "", append([]string{"get"}, args...)...)
			assert.Error(t, res.Err, "%v must be gone", args)
		}
		// Nothing of anybody else is touched.
		for _, s := range survivors {
			assert.Equal(t, before[s], state(t, s), "tenant %s changed when %s was deleted", s, gone)
		}
		assert.Equal(t, systemUIDs, framework.Kubectl(t, append([]string{"get", "namespace"}, append(system, "-o", "jsonpath={.items[*].metadata.uid}")...)...))
		assert.Equal(t, clusterRoles, framework.Kubectl(t, "get", "clusterrole", "cluster-admin", "admin", "edit", "view", "acmex-role", "acme", "zoo-tenant-admin", "-o", "jsonpath={.items[*].metadata.uid}"))
	}
	// The decoys would keep later tests of the package from creating acme.
	res = kubectl(t, decoys, "delete", "-f", "-", "--wait")
	require.NoError(t, res.Err, res.Stderr)
}
