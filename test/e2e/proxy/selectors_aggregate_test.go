package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Issue 24, class 3: label selectors that a platform controller evaluates
// over every tenant's objects. These tests are the attacks on ClusterRole
// aggregation (the clusterrole-aggregation controller looks at every
// ClusterRole of the cluster) through the proxy, with the tenant identity
// directly upstream, with a tenant pod's ServiceAccount token and through
// the server.

// grabbingRole is a ClusterRole of acme whose aggregationRule tries every
// selector form that, unconfined, would select roles outside acme.
func grabbingRole(name string) string {
	return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ` + name + `}
aggregationRule:
  clusterRoleSelectors:
  - matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-admin, operator: Exists}]
  - matchExpressions: [{key: rbac.authorization.k8s.io/aggregate-to-admin, operator: DoesNotExist}]
  - matchExpressions: [{key: example.com/sel, operator: NotIn, values: ["false"]}]
  - {}
rules: []
`
}

// selectorRole is a ClusterRole labeled to be aggregated, with one rule on
// resource (a marker of whose role it is).
func selectorRole(name, labels, resource string) string {
	return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ` + name + `
  labels: {` + labels + `}
rules:
- {apiGroups: [sel.example.com], resources: [` + resource + `], verbs: [get]}
`
}

// TestSelectorAggregationConfined: whatever selector form a tenant writes
// into an aggregationRule, the tenant's role aggregates its own roles only:
// never beta's, nor the platform's roles labeled like them.
func TestSelectorAggregationConfined(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	lb := servers(t) // before othersState: the first start installs the server
	const aggLabels = `rbac.authorization.k8s.io/aggregate-to-admin: "true", example.com/sel: "true"`
	acme.apply(t, selectorRole("sel-mine", aggLabels, "acmewidgets"))
	beta.apply(t, selectorRole("sel-theirs", aggLabels, "betawidgets"))
	// The platform's roles, labeled as a tenant's are upstream, and with
	// the cluster's own aggregation key.
	res := framework.Run(t.Context(), []byte(selectorRole("sel-platform", `rbac.zoo.kubectl-zoo.io/aggregate-to-admin: "true", example.com/sel: "true"`, "platformwidgets")+
		"---\n"+selectorRole("acme-sel-unlabeled", `example.com/sel: "true"`, "unlabeledwidgets")),
		framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	defer func() {
		acme.run(t, "", "delete", "clusterrole", "sel-mine", "sel-grab", "--ignore-not-found")
		beta.run(t, "", "delete", "clusterrole", "sel-theirs", "--ignore-not-found")
		admin(t, "delete", "clusterrole", "sel-platform", "acme-sel-unlabeled", "--ignore-not-found")
	}()
	before := othersState(t)

	foreign := []string{"betawidgets", "platformwidgets", "unlabeledwidgets"}
	grabbed := func(t *testing.T, s *served, name string) {
		t.Helper()
		var rules string
		require.Eventually(t, func() bool {
			rules = s.k(t, "get", "clusterrole", name, "-o", "jsonpath={.rules}")
			return strings.Contains(rules, "acmewidgets")
		}, 30*time.Second, 500*time.Millisecond, "acme's own role is aggregated")
		time.Sleep(2 * time.Second) // the controller has seen every role by now
		up := admin(t, "get", "clusterrole", "acme-"+name, "-o", "jsonpath={.rules}")
		for _, f := range foreign {
			assert.NotContains(t, up, f, "the aggregated role upstream holds no rule of a role outside acme")
		}
	}

	t.Run("through the proxy", func(t *testing.T) {
		acme.apply(t, grabbingRole("sel-grab"))
		grabbed(t, acme, "sel-grab")
		sels := acme.k(t, "get", "clusterrole", "sel-grab", "-o", "jsonpath={.aggregationRule.clusterRoleSelectors}")
		assert.JSONEq(t, `[{"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-admin","operator":"Exists"}]},`+
			`{"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-admin","operator":"DoesNotExist"}]},`+
			`{"matchExpressions":[{"key":"example.com/sel","operator":"NotIn","values":["false"]}]},{}]`, sels, "acme reads back what it wrote")
		for _, sel := range []string{
			`{matchExpressions: [{key: zoo.kubectl-zoo.io/tenant, operator: NotIn, values: [acme]}]}`,
			`{matchExpressions: [{key: zoo.kubectl-zoo.io/tenant, operator: DoesNotExist}]}`,
			`{matchLabels: {zoo.kubectl-zoo.io/tenant: beta}}`,
			`{matchExpressions: [{key: rbac.zoo.kubectl-zoo.io/aggregate-to-admin, operator: Exists}]}`,
		} {
			res := acme.run(t, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: sel-refused}\naggregationRule:\n  clusterRoleSelectors:\n  - "+sel+"\n",
				"create", "-f", "-")
			require.Error(t, res.Err, sel)
			assert.Contains(t, res.Stderr, "Forbidden", "the proxy refuses %s", sel)
			assert.NotContains(t, res.Stderr, "ValidatingAdmissionPolicy", "the proxy itself refuses %s", sel)
		}
		// Patches too: a JSON patch that adds a selector of every role.
		res := acme.run(t, "", "patch", "clusterrole", "sel-grab", "--type=json",
			"-p", `[{"op":"add","path":"/aggregationRule/clusterRoleSelectors/-","value":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"Exists"}]}}]`)
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "zoo.kubectl-zoo.io/tenant")
	})

	t.Run("the tenant's identity directly upstream", func(t *testing.T) {
		for _, sels := range []string{
			`[{"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-admin","operator":"Exists"}]}]`,
			`[{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"acme"}},{}]`,
			`[{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme","beta"]}]}]`,
			`[{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}}]`,
		} {
			role := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"acme-sel-direct","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},` +
				`"aggregationRule":{"clusterRoleSelectors":` + sels + `}}`
			res := framework.Run(t.Context(), []byte(role), framework.KubectlPath(),
				append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "create", "-f", "-"}, tenantIdentity...)...)
			require.Error(t, res.Err, sels)
			assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant'", sels)
			assert.Contains(t, res.Stderr, "may only aggregate roles selected by zoo.kubectl-zoo.io/tenant=acme", sels)
		}
		// A merge patch that replaces the confined selectors of the role
		// acme made through the proxy.
		res := framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig,
			"patch", "clusterrole", "acme-sel-grab", "--type=merge", "-p", `{"aggregationRule":{"clusterRoleSelectors":[{}]}}`}, tenantIdentity...)...)
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant'")
	})

	t.Run("a tenant pod's ServiceAccount token", func(t *testing.T) {
		acme.k(t, "create", "namespace", "sel-agg")
		defer acme.run(t, "", "delete", "namespace", "sel-agg", "--wait=false")
		// The strongest a tenant can give its pod: cluster-admin of its view.
		acme.k(t, "create", "clusterrolebinding", "sel-agg-sa", "--clusterrole=cluster-admin", "--serviceaccount=sel-agg:default")
		defer acme.run(t, "", "delete", "clusterrolebinding", "sel-agg-sa")
		kc := saKubeconfig(t, acme, "sel-agg")
		role := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"acme-sel-sa","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},` +
			`"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"acme"}},{}]}}`
		refusedUpstream(t, kc, nil, role, "create", "-f", "-")
		refusedUpstream(t, kc, nil, "", "patch", "clusterrole", "acme-sel-grab", "--type=merge", "-p", `{"aggregationRule":{"clusterRoleSelectors":[{}]}}`)
	})

	t.Run("through the server", func(t *testing.T) {
		srv := viaServer(t, lb, "acme")
		srv.apply(t, strings.Replace(grabbingRole("sel-grab-srv"), "- {}", "- null", 1), "--validate=false")
		defer srv.run(t, "", "delete", "clusterrole", "sel-grab-srv")
		grabbed(t, srv, "sel-grab-srv")
		res := srv.run(t, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: sel-refused}\naggregationRule:\n  clusterRoleSelectors:\n"+
			"  - {matchExpressions: [{key: zoo.kubectl-zoo.io/tenant, operator: NotIn, values: [acme]}]}\n", "create", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "Forbidden")
	})

	assert.Equal(t, before, othersState(t), "nothing outside acme changed")
	assert.NotContains(t, beta.k(t, "get", "clusterrole", "admin", "-o", "jsonpath={.rules}"), "acmewidgets", "beta's admin gained nothing")
	assert.Empty(t, admin(t, "get", "clusterroles", "acme-sel-direct", "acme-sel-sa", "acme-sel-refused", "--ignore-not-found", "-o", "name"), "no refused role exists")
}
