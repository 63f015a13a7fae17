package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestStandardRolesAggregateOnDemand: a new tenant's admin, edit and view
// hold their rules from the start without an aggregationRule (the cluster's
// aggregation controller works on every aggregated role of the cluster at
// every ClusterRole change, so thousands of tenants' roles made tenant
// create wait seconds for it); the rules are exactly those the controller
// computes for their selectors; and the tenant's first ClusterRole that
// aggregates into them, labeled through the proxy, switches their
// aggregation on, after which they collect it as before.
func TestStandardRolesAggregateOnDemand(t *testing.T) {
	tenants(t)
	const tenant = "lazy"
	zoo := func(args ...string) framework.Result {
		return framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
	}
	res := zoo("tenant", "create", tenant)
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() { zoo("tenant", "delete", tenant) })
	up := framework.AdminClient(t).RbacV1().ClusterRoles()
	get := func(name string) *rbacv1.ClusterRole {
		t.Helper()
		role, err := up.Get(t.Context(), tenant+"-"+name, metav1.GetOptions{})
		require.NoError(t, err)
		return role
	}

	for _, name := range platformobj.AggregatedStandardRoles {
		t.Run(name+" holds what the aggregation controller computes", func(t *testing.T) {
			role := get(name)
			assert.Nil(t, role.AggregationRule, "not aggregated until the tenant has a role to aggregate")
			require.NotEmpty(t, role.Rules)
			// A role with the same selector, unlabeled (nothing aggregates
			// it), filled by the controller itself.
			probe := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "zoo-e2e-probe-" + tenant + "-" + name},
				AggregationRule: platformobj.StandardAggregationRule(translate.MustTenant(tenant), name)}
			_, err := up.Create(t.Context(), probe, metav1.CreateOptions{})
			require.NoError(t, err)
			defer func() { _ = up.Delete(t.Context(), probe.Name, metav1.DeleteOptions{}) }()
			var filled *rbacv1.ClusterRole
			require.Eventually(t, func() bool {
				filled, err = up.Get(t.Context(), probe.Name, metav1.GetOptions{})
				return err == nil && len(filled.Rules) > 0
			}, time.Minute, 100*time.Millisecond, "the aggregation controller fills the probe")
			assert.Equal(t, filled.Rules, role.Rules, "the same rules in the same order")
		})
	}

	s := serve(t, tenant)
	s.apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gadgets-view}
rules:
- {apiGroups: [lazy.example.com], resources: [gadgets], verbs: [get]}
`)
	for _, name := range platformobj.AggregatedStandardRoles {
		assert.Nil(t, get(name).AggregationRule, "%s: a role that aggregates into nothing changes nothing", name)
	}
	out := s.run(t, "", "label", "clusterrole", "gadgets-view", "rbac.authorization.k8s.io/aggregate-to-view=true")
	require.NoError(t, out.Err, out.Stderr)
	assert.NotContains(t, out.Stderr, "not aggregated", "no warning")
	for _, name := range platformobj.AggregatedStandardRoles {
		assert.Equal(t, platformobj.StandardAggregationRule(translate.MustTenant(tenant), name), get(name).AggregationRule, name)
	}
	for _, name := range platformobj.AggregatedStandardRoles {
		require.Eventually(t, func() bool {
			return strings.Contains(s.k(t, "get", "clusterrole", name, "-o", "jsonpath={.rules}"), `"resources":["gadgets"]`)
		}, time.Minute, 200*time.Millisecond, "%s collects gadgets-view (view into edit into admin)", name)
	}
	assert.Equal(t, `{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}`,
		s.k(t, "get", "clusterrole", "admin", "-o", "jsonpath={.aggregationRule.clusterRoleSelectors[0].matchLabels}"),
		"the tenant reads admin's selector as a cluster of its own shows it")
}
