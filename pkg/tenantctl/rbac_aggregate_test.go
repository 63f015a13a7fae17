package tenantctl

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// aggregationFixture is the tenant's standard roles over a cluster whose
// admin, edit and view hold one rule each (edit aggregating into admin, view
// into edit, as the cluster's do).
func aggregationFixture(t *testing.T) (translate.Tenant, []*rbacv1.ClusterRole, map[string]*rbacv1.ClusterRole) {
	t.Helper()
	rule := func(r string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{r}, Verbs: []string{"get"}}
	}
	cluster := map[string]*rbacv1.ClusterRole{
		"admin": {Rules: []rbacv1.PolicyRule{rule("secrets"), rule("pods"), rule("configmaps")}},
		"edit": {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}},
			Rules: []rbacv1.PolicyRule{rule("pods"), rule("configmaps")}},
		"view": {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
			Rules: []rbacv1.PolicyRule{rule("configmaps")}},
	}
	tenant := translate.MustTenant("acme")
	roles := platformobj.TenantClusterRoles(tenant, func(name string) *rbacv1.ClusterRole { return cluster[name] })
	byName := map[string]*rbacv1.ClusterRole{}
	for _, r := range roles {
		byName[r.Name] = r
	}
	return tenant, roles, byName
}

// TestSettleAggregation: the aggregated standard roles get the rules the
// aggregation controller computes once settled: per selector the matching
// roles other than the role itself by name, each rule once, nested
// aggregations (view into edit into admin) followed, the tenant's own
// aggregated roles included.
func TestSettleAggregation(t *testing.T) {
	widgets := rbacv1.PolicyRule{APIGroups: []string{"acme-example.com"}, Resources: []string{"widgets"}, Verbs: []string{"list"}}
	tests := []struct {
		name     string
		existing []rbacv1.ClusterRole
		want     map[string][]string // role: resources of its rules, in order
	}{{
		name: "a new tenant",
		want: map[string][]string{"admin": {"pods", "configmaps", "secrets"}, "edit": {"pods", "configmaps"}, "view": {"configmaps"}},
	}, {
		name: "a role of the tenant aggregates into view, so into edit and admin",
		existing: []rbacv1.ClusterRole{{
			ObjectMeta: metav1.ObjectMeta{Name: "acme-widgets-view", Labels: map[string]string{
				translate.TenantLabel: "acme", translate.TenantAggregateLabelPrefix + "view": "true"}},
			Rules: []rbacv1.PolicyRule{widgets},
		}},
		// acme-edit's rules come first in admin (its members by name), and
		// view's after edit's base in edit.
		want: map[string][]string{"admin": {"pods", "configmaps", "widgets", "secrets"}, "edit": {"pods", "configmaps", "widgets"},
			"view": {"configmaps", "widgets"}},
	}, {
		name: "another tenant's role matches no selector",
		existing: []rbacv1.ClusterRole{{
			ObjectMeta: metav1.ObjectMeta{Name: "beta-widgets-view", Labels: map[string]string{
				translate.TenantLabel: "beta", translate.TenantAggregateLabelPrefix + "view": "true"}},
			Rules: []rbacv1.PolicyRule{widgets},
		}},
		want: map[string][]string{"admin": {"pods", "configmaps", "secrets"}, "edit": {"pods", "configmaps"}, "view": {"configmaps"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, roles, byName := aggregationFixture(t)
			platformobj.SettleAggregation(roles, tt.existing)
			for name, want := range tt.want {
				var got []string
				for _, r := range byName["acme-"+name].Rules {
					got = append(got, r.Resources...)
				}
				assert.Equal(t, want, got, name)
			}
			assert.Len(t, byName["acme-system:aggregate-to-admin"].Rules, 3, "the bases are left as they are")
		})
	}
}

// TestPlainUntilAggregated: the standard roles aggregate only once one of
// the tenant's own roles (not a standard role or base, which carry the
// labels themselves) aggregates into them.
func TestPlainUntilAggregated(t *testing.T) {
	tests := []struct {
		name       string
		existing   []rbacv1.ClusterRole
		aggregated bool
	}{
		{name: "no roles of the tenant"},
		{name: "the standard roles themselves", existing: []rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "acme-edit", Labels: map[string]string{translate.TenantAggregateLabelPrefix + "admin": "true"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "acme-system:aggregate-to-view", Labels: map[string]string{translate.TenantAggregateLabelPrefix + "view": "true"}}},
		}},
		{name: "a role of the tenant's without the labels", existing: []rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "acme-reader", Labels: map[string]string{translate.TenantLabel: "acme"}}},
		}},
		{name: "a role aggregating into another of the tenant's own", existing: []rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "acme-reader", Labels: map[string]string{translate.TenantAggregateLabelPrefix + "monitoring": "true"}}},
		}},
		{name: "a role aggregating into edit", aggregated: true, existing: []rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "acme-widgets-edit", Labels: map[string]string{translate.TenantAggregateLabelPrefix + "edit": "true"}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tenant, roles, byName := aggregationFixture(t)
			platformobj.SettleAggregation(roles, tt.existing)
			platformobj.PlainUntilAggregated(tenant, roles, tt.existing)
			for _, name := range platformobj.AggregatedStandardRoles {
				role := byName["acme-"+name]
				require.NotEmpty(t, role.Rules, "%s holds its rules either way", name)
				if tt.aggregated {
					assert.Equal(t, platformobj.StandardAggregationRule(tenant, name), role.AggregationRule, name)
				} else {
					assert.Nil(t, role.AggregationRule, name)
				}
			}
		})
	}
}

// TestClusterStandardRoleWaitsUntilFilled: in a cluster that has just
// started, admin is aggregated but still empty; tenant create waits for the
// aggregation controller to fill it rather than copy no rules.
func TestClusterStandardRoleWaitsUntilFilled(t *testing.T) {
	agg := &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "y"}}}}
	kube := fake.NewClientset(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "admin"}, AggregationRule: agg})
	c := &Client{Client: &upstream.Client{Kube: kube}}
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = kube.RbacV1().ClusterRoles().Update(context.Background(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "admin"},
			AggregationRule: agg, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}}, metav1.UpdateOptions{})
	}()
	role, err := c.clusterStandardRole(t.Context(), "admin")
	require.NoError(t, err)
	assert.Len(t, role.Rules, 1, "the filled role, not the empty one")
}
