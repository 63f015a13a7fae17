package install

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// InstallClusterRoles returns the ClusterRoles of the security model.
//
// TenantAdminClusterRole grants everything, but it is only ever bound by
// RoleBindings inside a tenant's namespaces. TenantClusterClusterRole holds
// the cluster-scoped rights of tenant admins, derived from the kinds table
// (tenantClusterRules): RBAC cannot limit them to names with a prefix, so
// the TenantPolicy admission policy confines every write they allow; reads
// of these cluster-scoped kinds are not confined (see docs/security.md). It
// grants no namespaced reads cluster-wide, and nothing on admission
// configuration, APIServices, CSRs or kubectl-zoo's own API. One
// MembershipClusterRole per Pod Security level is what a tenant's
// MembershipRoleBinding grants the registry identity.
func InstallClusterRoles() []*rbacv1.ClusterRole {
	roles := []*rbacv1.ClusterRole{{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantAdminClusterRole, Labels: tenantapi.ManagedLabels()},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
	}, {
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantClusterClusterRole, Labels: tenantapi.ManagedLabels()},
		Rules:      tenantClusterRules(),
	}}
	for _, level := range translate.PodSecurityLevels {
		roles = append(roles, &rbacv1.ClusterRole{
			TypeMeta:   platformobj.ClusterRoleType,
			ObjectMeta: metav1.ObjectMeta{Name: tenantapi.MembershipClusterRole(level), Labels: tenantapi.ManagedLabels()},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource}, Verbs: []string{"get"},
			}, {
				APIGroups: []string{translate.APIGroup}, Resources: []string{admissionrules.PodSecurityLevelResource},
				ResourceNames: []string{level}, Verbs: []string{"use"},
			}},
		})
	}
	return append(roles, policyctl.NamespaceLimitClusterRoleObject(), // pkg/policyctl/maxns.go
		admissionrules.PropagatorClusterRole(), // propagator.go
		SleepClusterRoleObject())               // sleep_rbac.go
}

// InstallClusterRoleBindings returns the only ClusterRoleBinding of the
// security model: translate.AdminsGroup, the administrators of every
// tenant, gets TenantClusterClusterRole. The API server's RBAC authorizer
// scans every ClusterRoleBinding for every request it authorizes (of every
// user and controller in the cluster), so kubectl-zoo keeps their number
// constant: nothing per tenant is a ClusterRoleBinding.
func InstallClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return []*rbacv1.ClusterRoleBinding{{
		TypeMeta:   platformobj.ClusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantClusterClusterRole, Labels: tenantapi.ManagedLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantClusterClusterRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: translate.AdminsGroup}},
	}, admissionrules.PropagatorClusterRoleBinding(), // propagator.go
		SleepClusterRoleBinding()} // sleep_rbac.go
}

// tenantClusterRules are the rules of TenantClusterClusterRole: for every
// cluster-scoped kind of the kinds table, the verbs of its UpstreamAccess,
// one rule per API group and access; the status subresources a tenant
// writes (tenantStatusRules); then the RBAC verbs a tenant admin needs
// beyond those.
func tenantClusterRules() []rbacv1.PolicyRule {
	type key struct {
		group  string
		access translate.Access
	}
	resources := map[key][]string{}
	for _, k := range translate.Kinds() {
		switch k.Treatment {
		case translate.Namespaced, translate.Virtual, translate.Hidden, translate.Forbidden:
			continue
		}
		if a := k.UpstreamAccess(); a == translate.AccessRead || a == translate.AccessWrite {
			kk := key{k.Resource.Group, a}
			resources[kk] = append(resources[kk], k.Resource.Resource)
		}
	}
	keys := make([]key, 0, len(resources))
	for k := range resources {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.group != b.group {
			return strings.Compare(a.group, b.group)
		}
		return int(a.access) - int(b.access)
	})
	rules := make([]rbacv1.PolicyRule, 0, len(keys)+4)
	for _, k := range keys {
		verbs := platformobj.ReadVerbs
		if k.access == translate.AccessWrite {
			verbs = platformobj.WriteVerbs
		}
		res := resources[k]
		slices.Sort(res)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: res, Verbs: verbs})
	}
	rules = append(rules, tenantStatusRules()...)
	return append(rules,
		// escalate: a tenant ClusterRole may hold rules its author lacks
		// cluster-wide; bind: RoleBindings in the tenant's namespaces to
		// the tenant's ClusterRoles (admission checks the roleRef).
		kindRule(rbacv1.GroupName, "ClusterRole", "bind", "escalate"),
		// create only: the RoleBinding of a namespace the tenant just
		// created (NamespaceRBAC); admission confines the namespace.
		kindRule(rbacv1.GroupName, "RoleBinding", "create"),
	)
}

// statusVerbs are the verbs of a status subresource.
var statusVerbs = []string{"get", "update", "patch"}

// tenantStatusRules grant the status subresource of the cluster-scoped kinds
// a tenant owns outright (TenantOwned, written upstream) whose status the
// kinds table classifies as writable (KindRule.SubresourceOf), not the
// platform's (namespaces, persistent volumes): in practice a tenant's
// CustomResourceDefinitions, whose status a cluster admin may read, update
// and patch. TenantPolicy confines these writes as the object's (a CRD's
// group must carry the tenant's prefix, the object its label) and refuses
// the platform's statuses.
func tenantStatusRules() []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	var groups []string
	for _, k := range translate.Kinds() {
		if k.Treatment != translate.TenantOwned || k.UpstreamAccess() != translate.AccessWrite || !k.SubresourceOf("status").Class.Writable() {
			continue
		}
		if _, ok := byGroup[k.Resource.Group]; !ok {
			groups = append(groups, k.Resource.Group)
		}
		byGroup[k.Resource.Group] = append(byGroup[k.Resource.Group], k.Resource.Resource+"/status")
	}
	slices.Sort(groups)
	rules := make([]rbacv1.PolicyRule, 0, len(groups))
	for _, g := range groups {
		res := byGroup[g]
		slices.Sort(res)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: res, Verbs: statusVerbs})
	}
	return rules
}
