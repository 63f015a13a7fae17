package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestNamespaceMadeDirectlyUpstreamIsSetUp (issue 25, class 1): a namespace
// the tenant identity makes directly upstream, where no proxy sees it, is
// set up by the reconcile of serve, and of the server, each running alone:
// its admins use it through the view; the admins' RoleBinding the tenant
// deletes or changes upstream comes back. A namespace the tenant labels for
// another tenant is refused upstream.
func TestNamespaceMadeDirectlyUpstreamIsSetUp(t *testing.T) {
	asTenant := func(t *testing.T, stdin string, args ...string) framework.Result {
		full := append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, tenantIdentity...)
		return framework.Run(t.Context(), []byte(stdin), framework.KubectlPath(), append(full, args...)...)
	}
	subjects := func(ns, rb string) string {
		res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"-n", ns, "get", "rolebinding", rb, "-o", "jsonpath={.subjects[*].name}")
		return strings.TrimSpace(res.Stdout)
	}
	adminsSubjects := func(ns string) string { return subjects(ns, "zoo-tenant-admins") }
	for _, name := range []string{"serve", "server"} {
		t.Run(name, func(t *testing.T) {
			var view *served
			if name == "serve" {
				view = serve(t, "acme")
			} else {
				view = viaServer(t, servers(t), "acme")
			}
			ns := "direct-" + name
			up := "acme-" + ns
			crb := "readers-" + name // granted in every namespace of the tenant
			view.k(t, "create", "clusterrolebinding", crb, "--clusterrole=view", "--user=dev")
			t.Cleanup(func() { view.run(t, "", "delete", "clusterrolebinding", crb) })
			granted := "zoo-crb-acme-" + crb
			res := asTenant(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+up+"\n  labels:\n    zoo.kubectl-zoo.io/tenant: acme\n"+
				"    pod-security.kubernetes.io/enforce: restricted\n", "create", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			t.Cleanup(func() { admin(t, "delete", "namespace", up, "--wait=false") })
			usable := func() bool { return view.run(t, "", "-n", ns, "create", "configmap", "probe-"+name).Err == nil }
			require.Eventually(t, usable, time.Minute, 500*time.Millisecond, "the admin uses a namespace made directly upstream")
			view.k(t, "-n", ns, "delete", "configmap", "probe-"+name)
			assert.Equal(t, "zoo:acme:dev", subjects(up, granted), "the tenant's ClusterRoleBinding is granted there")
			res = asTenant(t, "", "-n", up, "delete", "rolebinding", granted)
			require.NoError(t, res.Err, res.Stderr)
			require.Eventually(t, func() bool { return subjects(up, granted) == "zoo:acme:dev" }, time.Minute, 500*time.Millisecond,
				"a deleted grant of a ClusterRoleBinding comes back")

			res = asTenant(t, "", "-n", up, "delete", "rolebinding", "zoo-tenant-admins")
			require.NoError(t, res.Err, "the tenant may delete its admins' RoleBinding upstream: %s", res.Stderr)
			require.Eventually(t, func() bool { return adminsSubjects(up) == "zoo:acme:admin" }, time.Minute, 500*time.Millisecond,
				"a deleted admins' RoleBinding comes back")
			require.Eventually(t, usable, time.Minute, 500*time.Millisecond)

			res = asTenant(t, "", "-n", up, "patch", "rolebinding", "zoo-tenant-admins", "--type=json", "-p", `[{"op":"replace","path":"/subjects","value":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"zoo:acme:nobody"}]}]`)
			require.NoError(t, res.Err, "the tenant may change its admins' RoleBinding upstream: %s", res.Stderr)
			require.Eventually(t, func() bool { return adminsSubjects(up) == "zoo:acme:admin" }, time.Minute, 500*time.Millisecond,
				"a changed admins' RoleBinding is restored")
		})
	}
	t.Run("a namespace labeled for another tenant", func(t *testing.T) {
		for _, manifest := range []string{
			"acme-mislabeled\n  labels:\n    zoo.kubectl-zoo.io/tenant: beta\n",
			"beta-foreign\n  labels:\n    zoo.kubectl-zoo.io/tenant: beta\n",
			"beta-foreign\n  labels:\n    zoo.kubectl-zoo.io/tenant: acme\n",
		} {
			manifest = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + manifest + "    pod-security.kubernetes.io/enforce: restricted\n"
			res := asTenant(t, manifest, "create", "-f", "-")
			require.Error(t, res.Err, "refused upstream: %s", manifest)
			assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant", "by the tenant policies: %s", manifest)
			t.Log(res.Stderr)
		}
	})
}
