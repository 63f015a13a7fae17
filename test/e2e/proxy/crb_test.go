package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestClusterRoleBindings: a tenant ClusterRoleBinding grants its
// ClusterRole to its subjects in every namespace of the tenant (also those
// created later) and nowhere else; it reads back as written, and upstream it
// never carries subjects.
func TestClusterRoleBindings(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	dev, betaDev := serve(t, "acme", "--user", "dev"), serve(t, "beta", "--user", "dev")
	for _, s := range []*served{acme, beta} {
		s.k(t, "create", "namespace", "crb-early")
		s.k(t, "-n", "crb-early", "create", "configmap", "cfg", "--from-literal=owner="+s.Tenant)
		t.Cleanup(func() { s.run(t, "", "delete", "namespace", "crb-early", "--wait=false") })
	}
	canList := func(s *served, ns string) bool {
		return s.run(t, "", "-n", ns, "get", "configmaps", "-o", "name").Err == nil
	}
	require.False(t, canList(dev, "crb-early"), "dev starts with no rights")

	acme.k(t, "create", "clusterrole", "reader", "--verb=get,list", "--resource=configmaps")
	t.Cleanup(func() { acme.run(t, "", "delete", "clusterrole", "reader") })
	acme.k(t, "create", "clusterrolebinding", "readers", "--clusterrole=reader", "--user=dev", "--group=system:authenticated")
	t.Cleanup(func() { acme.run(t, "", "delete", "clusterrolebinding", "readers") })

	acme.k(t, "create", "namespace", "crb-later")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "crb-later", "--wait=false") })
	acme.k(t, "-n", "crb-later", "create", "configmap", "late")

	t.Run("dev reads in every namespace", func(t *testing.T) {
		for _, ns := range []string{"crb-early", "crb-later", "default"} {
			require.Eventually(t, func() bool { return canList(dev, ns) }, 30*time.Second, 200*time.Millisecond, "dev cannot list configmaps in %s", ns)
		}
		assert.Contains(t, dev.k(t, "-n", "crb-later", "get", "configmaps", "-o", "name"), "configmap/late")
		res := dev.run(t, "", "-n", "crb-early", "create", "configmap", "nope")
		assert.Error(t, res.Err, "the ClusterRole grants reads only")
	})
	t.Run("reads back as written", func(t *testing.T) {
		out := acme.k(t, "get", "clusterrolebinding", "readers", "-o", "yaml")
		for _, want := range []string{"name: readers", "name: reader\n", "kind: User", "name: dev", "kind: Group", "name: system:authenticated"} {
			assert.Contains(t, out, want)
		}
		for _, leak := range []string{"acme-", "zoo:", "zoo.kubectl-zoo.io"} {
			assert.NotContains(t, out, leak)
		}
		wide := acme.k(t, "get", "clusterrolebindings", "readers", "-o", "wide")
		assert.Regexp(t, `readers\s+ClusterRole/reader\s+\S+\s+dev\s+system:authenticated`, wide)
	})
	t.Run("RoleBinding tables show the tenant's names", func(t *testing.T) {
		acme.k(t, "-n", "crb-early", "create", "rolebinding", "viewers", "--clusterrole=view", "--user=viewer")
		wide := acme.k(t, "-n", "crb-early", "get", "rolebindings", "-o", "wide")
		assert.Regexp(t, `viewers\s+ClusterRole/view\s+\S+\s+viewer`, wide)
		for _, leak := range []string{"acme-", "zoo:", "zoo-tenant-admin"} {
			assert.NotContains(t, wide, leak, "kubectl-zoo's own bindings and upstream names stay out of view")
		}
	})
	t.Run("materialized RoleBindings stay out of the tenant's view", func(t *testing.T) {
		assert.NotContains(t, acme.k(t, "-n", "crb-early", "get", "rolebindings", "-o", "name"), "zoo-crb-")
		assert.NotContains(t, acme.k(t, "get", "rolebindings", "-A", "-o", "name"), "zoo-crb-")
		res := acme.run(t, "", "-n", "crb-early", "get", "rolebinding", "zoo-crb-acme-readers")
		assert.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "NotFound")
	})
	t.Run("upstream holds no subjects and beta gains nothing", func(t *testing.T) {
		assert.Empty(t, admin(t, "get", "clusterrolebinding", "acme-readers", "-o", "jsonpath={.subjects}"))
		assert.Contains(t, admin(t, "-n", "acme-crb-later", "get", "rolebinding", "zoo-crb-acme-readers", "-o", "jsonpath={.subjects[*].name}"), "zoo:acme:dev")
		assert.False(t, canList(betaDev, "crb-early"), "beta's dev")
		assert.False(t, canList(betaDev, "default"), "beta's dev")
		for _, args := range [][]string{
			{"-n", "beta-crb-early", "--as", "zoo:acme:dev", "--as-group", "zoo:tenant:acme"},
			{"-n", "kube-system", "--as", "zoo:acme:dev", "--as-group", "zoo:tenant:acme"},
			{"-A", "--as", "zoo:acme:dev", "--as-group", "zoo:tenant:acme"},
			{"-n", "acme-crb-early", "--as", "zoo:beta:dev", "--as-group", "zoo:tenant:beta"},
		} {
			res := framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig,
				"auth", "can-i", "list", "configmaps"}, args...)...)
			assert.Equal(t, "no", strings.TrimSpace(res.Stdout), "can-i %v", args)
		}
	})
	t.Run("patch and replace keep the subjects in the tenant's terms", func(t *testing.T) {
		acme.k(t, "patch", "clusterrolebinding", "readers", "--type=json", "-p", `[{"op":"remove","path":"/subjects/1"}]`)
		acme.k(t, "patch", "clusterrolebinding", "readers", "--type=merge", "-p", `{"metadata":{"labels":{"team":"blue"}}}`)
		assert.Equal(t, "dev", acme.k(t, "get", "clusterrolebinding", "readers", "-o", "jsonpath={.subjects[*].name}"))
		assert.Equal(t, "blue", acme.k(t, "get", "clusterrolebinding", "readers", "-o", "jsonpath={.metadata.labels.team}"))
		assert.Equal(t, "zoo:acme:dev", admin(t, "-n", "acme-crb-early", "get", "rolebinding", "zoo-crb-acme-readers", "-o", "jsonpath={.subjects[*].name}"))
		current := acme.k(t, "get", "clusterrolebinding", "readers", "-o", "yaml")
		require.Contains(t, current, "team: blue")
		replaced := acme.run(t, strings.Replace(current, "team: blue", "team: green", 1), "replace", "-f", "-")
		require.NoError(t, replaced.Err, replaced.Stderr)
		assert.Equal(t, "green dev", acme.k(t, "get", "clusterrolebinding", "readers", "-o", "jsonpath={.metadata.labels.team} {.subjects[*].name}"))
		res := acme.run(t, "", "patch", "clusterrolebinding", "readers", "--type=json", "-p", `[{"op":"add","path":"/metadata/labels/zoo.kubectl-zoo.io~1tenant","value":"beta"}]`)
		assert.Error(t, res.Err, "the ownership label stays out of reach")
	})
	t.Run("client-side apply, server-side apply refused", func(t *testing.T) {
		manifest := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: appliers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: ops}
`
		acme.apply(t, manifest)
		t.Cleanup(func() { acme.run(t, "", "delete", "clusterrolebinding", "appliers") })
		acme.apply(t, strings.Replace(manifest, "name: ops", "name: ops2", 1))
		assert.Equal(t, "ops2", acme.k(t, "get", "clusterrolebinding", "appliers", "-o", "jsonpath={.subjects[*].name}"))
		assert.Equal(t, "zoo:acme:ops2", admin(t, "-n", "acme-crb-early", "get", "rolebinding", "zoo-crb-acme-appliers", "-o", "jsonpath={.subjects[*].name}"))
		res := acme.run(t, manifest, "apply", "--server-side", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "server-side apply")
	})
	t.Run("delete revokes", func(t *testing.T) {
		acme.k(t, "delete", "clusterrolebinding", "readers")
		assert.Empty(t, admin(t, "get", "rolebindings", "-A", "-l", "zoo.kubectl-zoo.io/clusterrolebinding=acme-readers", "-o", "name"))
		for _, ns := range []string{"crb-early", "crb-later"} {
			require.Eventually(t, func() bool { return !canList(dev, ns) }, 30*time.Second, 200*time.Millisecond, "dev still lists configmaps in %s", ns)
		}
	})
}
