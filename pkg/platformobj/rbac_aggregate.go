package platformobj

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// SettleAggregation fills the rules of the aggregated ClusterRoles among
// apply with what the cluster's clusterrole-aggregation controller will
// write into them once it settled, given that apply and existing (the
// tenant's ClusterRoles that exist upstream; apply wins by name) are all the
// roles their selectors can match. It follows the controller's own
// algorithm (kube-controller-manager, clusterroleaggregation): per
// selector, the matching roles other than the role itself in name order,
// each rule once; repeated until nothing changes, as the controller's
// passes over nested aggregations do.
//
// Why: the controller requeues every aggregated ClusterRole of the cluster
// on any ClusterRole change, so with thousands of tenants (three aggregated
// roles each) it filled a new tenant's roles only after seconds, and tenant
// create waited for it. Written with the rules it would compute, the roles
// grant at once and the controller finds nothing to change.
func SettleAggregation(apply []*rbacv1.ClusterRole, existing []rbacv1.ClusterRole) {
	all := map[string]*rbacv1.ClusterRole{}
	for i := range existing {
		all[existing[i].Name] = existing[i].DeepCopy()
	}
	for _, r := range apply {
		all[r.Name] = r
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	// Each pass settles at least one more level of nesting; a cycle, which
	// the controller never settles either, ends after as many passes.
	for range len(all) + 1 {
		changed := false
		for _, name := range names {
			role := all[name]
			if role.AggregationRule == nil {
				continue
			}
			rules, ok := aggregatedRules(role, names, all)
			if ok && !equality.Semantic.DeepEqual(rules, role.Rules) {
				role.Rules, changed = rules, true
			}
		}
		if !changed {
			return
		}
	}
}

// aggregatedRules is one pass of the controller over role: the rules of
// the roles its selectors match, in the order of names. It is false for a
// selector the controller could not parse either (it leaves such a role
// as it is).
func aggregatedRules(role *rbacv1.ClusterRole, names []string, all map[string]*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, bool) {
	rules := []rbacv1.PolicyRule{}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, false
		}
		for _, name := range names {
			member := all[name]
			if name == role.Name || !selector.Matches(labels.Set(member.Labels)) {
				continue
			}
			for _, rule := range member.Rules {
				if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, rule) }) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules, true
}

// StandardAggregationRule is the aggregationRule of the tenant's standard
// role name (admin, edit or view): the tenant's ClusterRoles labeled, in the
// form the translator writes for a tenant's own selector,
// translate.TenantAggregateLabelPrefix+name = "true".
func StandardAggregationRule(t translate.Tenant, name string) *rbacv1.AggregationRule {
	return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{
		translate.TenantLabel: t.Name(), translate.TenantAggregateLabelPrefix + name: "true",
	}}}}
}

// AggregatedStandardRoles are the standard roles that aggregate
// (TenantClusterRoles), in the order a role aggregates into the next.
var AggregatedStandardRoles = []string{"view", "edit", "admin"}

// AggregatesIntoStandardRoles reports whether the tenant's ClusterRole
// (upstream name and labels) is one of its own that aggregates into its
// standard admin, edit or view: labeled so and not one of the standard
// roles or their bases, which carry those labels themselves.
func AggregatesIntoStandardRoles(t translate.Tenant, name string, labels map[string]string) bool {
	for _, std := range tenantapi.StandardClusterRoles {
		if name == t.Prefix()+std || name == t.Prefix()+AggregateBaseClusterRole(std) {
			return false
		}
	}
	for _, std := range AggregatedStandardRoles {
		if labels[translate.TenantAggregateLabelPrefix+std] == "true" {
			return true
		}
	}
	return false
}

// PlainUntilAggregated leaves the aggregated standard roles among standard
// (their rules settled, SettleAggregation) without their aggregationRule
// unless one of the tenant's existing ClusterRoles aggregates into them.
//
// Why: the cluster's clusterrole-aggregation controller requeues every
// aggregated ClusterRole of the cluster on any ClusterRole change and
// lists the cluster's roles for each, so three aggregated roles per tenant
// made it O(tenants²): at 1 000 tenants one tenant create cost it 6.8 CPU
// seconds. A tenant's first role that aggregates into them, written through
// the proxy, switches aggregation on (localproxy, aggregation.go); tenant
// create does so when it finds one.
func PlainUntilAggregated(t translate.Tenant, standard []*rbacv1.ClusterRole, existing []rbacv1.ClusterRole) {
	for i := range existing {
		if AggregatesIntoStandardRoles(t, existing[i].Name, existing[i].Labels) {
			return
		}
	}
	for _, r := range standard {
		r.AggregationRule = nil
	}
}
