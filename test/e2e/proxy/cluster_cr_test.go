package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clusterWidgetCRD is a cluster-scoped CRD; group is its API group.
func clusterWidgetCRD(group string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: clusterwidgets.` + group + `}
spec:
  group: ` + group + `
  scope: Cluster
  names: {plural: clusterwidgets, singular: clusterwidget, kind: ClusterWidget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`
}

// TestClusterScopedCRsThroughProxy (issue 16): a tenant's admin reads and
// writes the objects of its own cluster-scoped CRD (the proxy sends them with
// its own identity once the translator has put them in the tenant's group);
// a user of the tenant who may not use the CRD may not use its objects; the
// other tenant reaches none of them.
func TestClusterScopedCRsThroughProxy(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	acme.apply(t, clusterWidgetCRD("cw.example.org"))
	beta.apply(t, clusterWidgetCRD("cw.example.org"))
	t.Cleanup(func() {
		acme.run(t, "", "delete", "crd", "clusterwidgets.cw.example.org", "--wait=false")
		beta.run(t, "", "delete", "crd", "clusterwidgets.cw.example.org", "--wait=false")
	})
	acme.k(t, "wait", "crd/clusterwidgets.cw.example.org", "--for=condition=Established", "--timeout=60s")
	beta.k(t, "wait", "crd/clusterwidgets.cw.example.org", "--for=condition=Established", "--timeout=60s")

	widget := func(name, size string) string {
		return "apiVersion: cw.example.org/v1\nkind: ClusterWidget\nmetadata: {name: " + name + "}\nspec: {size: " + size + "}\n"
	}
	require.Eventually(t, func() bool { return acme.run(t, widget("one", "1"), "create", "-f", "-").Err == nil },
		30*time.Second, 500*time.Millisecond, "acme's ClusterWidget could not be created")
	acme.apply(t, widget("two", "2"))
	acme.apply(t, widget("three", "3"), "--server-side")
	beta.apply(t, widget("theirs", "9"))

	assert.Equal(t, "1", acme.k(t, "get", "clusterwidget", "one", "-o", "jsonpath={.spec.size}"))
	assert.Equal(t, "one three two", acme.k(t, "get", "clusterwidgets", "-o", "jsonpath={.items[*].metadata.name}"))
	acme.k(t, "patch", "clusterwidget", "one", "--type=merge", `-p={"spec":{"size":10}}`)
	acme.k(t, "patch", "clusterwidget", "two", "--type=json", `-p=[{"op":"replace","path":"/spec/size","value":20}]`)
	acme.k(t, "label", "clusterwidget", "one", "team=a")
	acme.k(t, "delete", "clusterwidget", "three")
	assert.Equal(t, "10 20", acme.k(t, "get", "clusterwidgets", "-o", "jsonpath={.items[*].spec.size}"))
	assert.Equal(t, "one two", admin(t, "get", "clusterwidgets.acme-cw.example.org", "-o", "jsonpath={.items[*].metadata.name}"))
	assert.Equal(t, "theirs", admin(t, "get", "clusterwidgets.beta-cw.example.org", "-o", "jsonpath={.items[*].metadata.name}"))

	// A watch sees acme's changes.
	watch := acme.run(t, "", "get", "clusterwidgets", "--watch-only", "--request-timeout=3s", "-o", "name")
	assert.NotContains(t, watch.Stderr, "forbidden")

	// beta sees and reaches only its own.
	assert.Equal(t, "theirs", beta.k(t, "get", "clusterwidgets", "-o", "jsonpath={.items[*].metadata.name}"))
	for _, args := range [][]string{
		{"get", "clusterwidget", "one"},
		{"get", "clusterwidgets.acme-cw.example.org"},
		{"get", "--raw", "/apis/acme-cw.example.org/v1/clusterwidgets"},
		{"delete", "--raw", "/apis/acme-cw.example.org/v1/clusterwidgets/one"},
		{"patch", "clusterwidgets.acme-cw.example.org", "one", "--type=merge", `-p={"spec":{"size":0}}`},
	} {
		t.Run("beta/"+strings.Join(args, " "), func(t *testing.T) {
			res := beta.run(t, "", args...)
			require.Error(t, res.Err, "must fail; stdout: %s", res.Stdout)
		})
	}
	// A user of acme who is not an admin may not use the CRD, so not its
	// objects either.
	bob := serve(t, "acme", "--user", "bob")
	for _, tc := range []struct {
		verb string
		args []string
	}{{"list", []string{"get", "clusterwidgets"}}, {"get", []string{"get", "clusterwidget", "one"}}, {"delete", []string{"delete", "clusterwidget", "one"}}} {
		t.Run("bob/"+strings.Join(tc.args, " "), func(t *testing.T) {
			res := bob.run(t, "", tc.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, `may not `+tc.verb+` the CustomResourceDefinition clusterwidgets.cw.example.org`)
		})
	}
	assert.Equal(t, "10 20", admin(t, "get", "clusterwidgets.acme-cw.example.org", "-o", "jsonpath={.items[*].spec.size}"), "acme's objects are unchanged")
	assert.Equal(t, "9", admin(t, "get", "clusterwidgets.beta-cw.example.org", "theirs", "-o", "jsonpath={.spec.size}"))
}
