package tenant_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestClusterScopedCRsUpstream (issue 16): the objects of a tenant's
// cluster-scoped CRD are served only through the proxy (with its own
// identity). Directly upstream no tenant identity — the other tenant's admin,
// the owning tenant's own admin, a ServiceAccount with every right in a
// tenant namespace — may read or write them.
func TestClusterScopedCRsUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	kubectlOK(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterwidgets.acme-cw.example.org
  labels: {zoo.kubectl-zoo.io/tenant: acme}
spec:
  group: acme-cw.example.org
  scope: Cluster
  names: {plural: clusterwidgets, singular: clusterwidget, kind: ClusterWidget}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`, "apply", "-f", "-")
	defer kubectl(t, "", "delete", "crd", "clusterwidgets.acme-cw.example.org", "--wait=false")
	framework.Kubectl(t, "wait", "crd/clusterwidgets.acme-cw.example.org", "--for=condition=Established", "--timeout=60s")
	widget := "apiVersion: acme-cw.example.org/v1\nkind: ClusterWidget\nmetadata: {name: one}\nspec: {size: 1}\n"
	require.Eventually(t, func() bool { return kubectl(t, widget, "apply", "-f", "-").Err == nil }, 30*time.Second, 500*time.Millisecond)
	sa := serviceAccountKubeconfig(t)

	before := framework.Kubectl(t, "get", "clusterwidgets.acme-cw.example.org", "-o", "jsonpath={.items[*].metadata.resourceVersion}")
	for _, id := range []struct {
		name string
		as   []string
		kc   string
	}{
		{name: "beta's admin", as: []string{"--as", "zoo:beta:admin", "--as-group", "zoo:tenant:beta", "--as-group", "zoo:admins"}},
		{name: "acme's admin", as: []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}},
		{name: "acme's ServiceAccount", kc: sa},
	} {
		for _, a := range []attack{
			{name: "get", args: []string{"get", "clusterwidget.acme-cw.example.org", "one"}},
			{name: "list", args: []string{"get", "clusterwidgets.acme-cw.example.org"}},
			{name: "watch", args: []string{"get", "clusterwidgets.acme-cw.example.org", "--watch-only", "--request-timeout=2s"}},
			{name: "create", stdin: strings.ReplaceAll(widget, "one", "two"), args: []string{"create", "-f", "-"}},
			{name: "patch", args: []string{"patch", "clusterwidget.acme-cw.example.org", "one", "--type=merge", `-p={"spec":{"size":0}}`}},
			{name: "delete", args: []string{"delete", "clusterwidget.acme-cw.example.org", "one"}},
		} {
			t.Run(id.name+"/"+a.name, func(t *testing.T) {
				var res framework.Result
				if id.kc != "" {
					res = kubectlWith(t, id.kc, a.stdin, a.args...)
				} else {
					res = kubectl(t, a.stdin, append(id.as, a.args...)...)
				}
				require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
				assert.Contains(t, res.Stderr, "forbidden")
			})
		}
	}
	assert.Equal(t, before, framework.Kubectl(t, "get", "clusterwidgets.acme-cw.example.org", "-o", "jsonpath={.items[*].metadata.resourceVersion}"))
}
