package tenant_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterRoleAggregationUpstream (issue 16): directly upstream a
// tenant's ClusterRole may aggregate only roles labeled as its own (the form
// the proxy writes), never another tenant's, every role, or into the
// cluster's aggregated roles.
func TestClusterRoleAggregationUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	beta := []string{"--as", "zoo:beta:admin", "--as-group", "zoo:tenant:beta", "--as-group", "zoo:admins"}
	role := func(name, selector string) string {
		return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ` + name + `
  labels: {zoo.kubectl-zoo.io/tenant: beta}
aggregationRule:
  clusterRoleSelectors:
  - ` + selector + `
`
	}
	// Positive control: the proxy's form.
	kubectlOK(t, role("beta-agg", `matchLabels: {zoo.kubectl-zoo.io/tenant: beta, example.com/agg: "true"}`), append(beta, "create", "-f", "-")...)
	defer kubectl(t, "", "delete", "clusterrole", "beta-agg")
	for _, a := range []attack{
		{name: "acme's roles", stdin: role("beta-grab", `matchLabels: {zoo.kubectl-zoo.io/tenant: acme}`)},
		{name: "every role", stdin: role("beta-grab", `matchLabels: {}`)},
		{name: "the label by expression", stdin: role("beta-grab", `matchExpressions: [{key: zoo.kubectl-zoo.io/tenant, operator: In, values: [beta]}]`)},
		{name: "the cluster's admin role's parts", stdin: role("beta-grab", `matchLabels: {rbac.authorization.k8s.io/aggregate-to-admin: "true"}`)},
		{name: "into the cluster's admin role", stdin: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: beta-into-admin
  labels: {zoo.kubectl-zoo.io/tenant: beta, rbac.authorization.k8s.io/aggregate-to-admin: "true"}
rules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]
`},
	} {
		t.Run(a.name, func(t *testing.T) {
			res := kubectl(t, a.stdin, append(beta, "create", "-f", "-")...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant'")
		})
	}
}
