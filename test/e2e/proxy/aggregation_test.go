package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func aggregatedRole(name, label, resource string) string {
	return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ` + name + `
  labels: {` + label + `: "true"}
rules:
- {apiGroups: [""], resources: [` + resource + `], verbs: [get]}
`
}

// TestClusterRoleAggregationThroughProxy (issue 16): a tenant's ClusterRole
// with an aggregationRule aggregates the tenant's own ClusterRoles, never
// another tenant's nor the cluster's, and reads back as written.
func TestClusterRoleAggregationThroughProxy(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	const label = "example.com/aggregate-to-agg"
	acme.apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: agg}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {`+label+`: "true"}
rules: []
`)
	acme.apply(t, aggregatedRole("part", label, "configmaps"))
	beta.apply(t, aggregatedRole("part", label, "secrets"))
	admin(t, "create", "clusterrole", "platform-part", "--verb=get", "--resource=nodes")
	admin(t, "label", "clusterrole", "platform-part", label+"=true")
	defer func() {
		acme.run(t, "", "delete", "clusterrole", "agg", "part")
		beta.run(t, "", "delete", "clusterrole", "part")
		admin(t, "delete", "clusterrole", "platform-part")
	}()

	var rules string
	require.Eventually(t, func() bool {
		rules = acme.k(t, "get", "clusterrole", "agg", "-o", "jsonpath={.rules}")
		return strings.Contains(rules, "configmaps")
	}, 30*time.Second, 500*time.Millisecond, "acme's own role is aggregated")
	time.Sleep(2 * time.Second) // the controller has seen every role by now
	rules = acme.k(t, "get", "clusterrole", "agg", "-o", "jsonpath={.rules}")
	assert.NotContains(t, rules, "secrets", "beta's role is not aggregated")
	assert.NotContains(t, rules, "nodes", "the cluster's role is not aggregated")
	assert.Equal(t, `{"`+label+`":"true"}`, acme.k(t, "get", "clusterrole", "agg", "-o", "jsonpath={.aggregationRule.clusterRoleSelectors[0].matchLabels}"),
		"the tenant reads its selector back as written")
	assert.Contains(t, admin(t, "get", "clusterrole", "acme-agg", "-o", "jsonpath={.aggregationRule.clusterRoleSelectors[0].matchLabels}"), `"zoo.kubectl-zoo.io/tenant":"acme"`)

	for _, tc := range []struct{ name, stdin string }{
		{"a selector naming the tenant label", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: grab}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {zoo.kubectl-zoo.io/tenant: beta}
`},
		{"a selector expression naming the tenant label", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: grab}
aggregationRule:
  clusterRoleSelectors:
  - matchExpressions: [{key: zoo.kubectl-zoo.io/tenant, operator: Exists}]
`},
		{"a label in the tenant's upstream aggregation keys", aggregatedRole("into-admin", "rbac.zoo.kubectl-zoo.io/aggregate-to-admin", "secrets")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := acme.run(t, tc.stdin, "create", "-f", "-")
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, "forbidden")
		})
	}
	assert.NotContains(t, admin(t, "get", "clusterrole", "admin", "-o", "jsonpath={.rules}"), "acme", "nothing of acme reached the cluster's admin role")
}
