package tenantctl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

var (
	clusterRoleType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
	clusterRoleBindingType = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"}
	roleBindingType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"}
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
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
		TypeMeta:   clusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantAdminClusterRole, Labels: tenantapi.ManagedLabels()},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
	}, {
		TypeMeta:   clusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantClusterClusterRole, Labels: tenantapi.ManagedLabels()},
		Rules:      tenantClusterRules(),
	}}
	for _, level := range translate.PodSecurityLevels {
		roles = append(roles, &rbacv1.ClusterRole{
			TypeMeta:   clusterRoleType,
			ObjectMeta: metav1.ObjectMeta{Name: tenantapi.MembershipClusterRole(level), Labels: tenantapi.ManagedLabels()},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource}, Verbs: []string{"get"},
			}, {
				APIGroups: []string{translate.APIGroup}, Resources: []string{PodSecurityLevelResource},
				ResourceNames: []string{level}, Verbs: []string{"use"},
			}},
		})
	}
	return append(roles, NamespaceLimitClusterRoleObject(), // policy_maxns.go
		PropagatorClusterRole(),  // propagator.go
		SleepClusterRoleObject()) // sleep_rbac.go
}

// InstallClusterRoleBindings returns the only ClusterRoleBinding of the
// security model: translate.AdminsGroup, the administrators of every
// tenant, gets TenantClusterClusterRole. The API server's RBAC authorizer
// scans every ClusterRoleBinding for every request it authorizes (of every
// user and controller in the cluster), so kubectl-zoo keeps their number
// constant: nothing per tenant is a ClusterRoleBinding.
func InstallClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return []*rbacv1.ClusterRoleBinding{{
		TypeMeta:   clusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantClusterClusterRole, Labels: tenantapi.ManagedLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantClusterClusterRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: translate.AdminsGroup}},
	}, PropagatorClusterRoleBinding(), // propagator.go
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
		verbs := readVerbs
		if k.access == translate.AccessWrite {
			verbs = writeVerbs
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
		rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"bind", "escalate"}},
		// create only: the RoleBinding of a namespace the tenant just
		// created (NamespaceRBAC); admission confines the namespace.
		rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"rolebindings"}, Verbs: []string{"create"}},
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

// TenantRBAC returns the one object that makes a tenant a member of the
// cluster: the RoleBinding MembershipRoleBinding in the tenant's
// MembershipNamespace, which binds the registry identity (the ServiceAccount
// RegistryNamespace/RegistryServiceAccount, which need not exist) to
// MembershipClusterRole of the tenant's Pod Security level. The admission
// policies ask the authorizer, for one namespace, whether the registry
// identity may get tenants there (the tenant exists) and use the level
// (a namespace of the tenant may be created at it): RBAC answers from the
// bindings of that one namespace, so the answer costs the same however many
// tenants exist. A tenant can neither make such a binding (TenantPolicy: its
// bindings name only its own subjects) nor delete it, nor delete the
// namespace.
func TenantRBAC(tenant *tenantapi.Tenant) (*rbacv1.RoleBinding, error) {
	t, err := tenant.TenantOf()
	if err != nil {
		return nil, err
	}
	level, err := PodSecurityLevel(tenant)
	if err != nil {
		return nil, err
	}
	return &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.MembershipRoleBinding, Namespace: tenantapi.MembershipNamespace(t), Labels: tenantapi.TenantManagedLabels(t)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.MembershipClusterRole(level)},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: tenantapi.RegistryNamespace, Name: tenantapi.RegistryServiceAccount}},
	}, nil
}

// NamespaceRBAC returns the RoleBinding(s) that give the tenant's admins
// every right inside one of the tenant's namespaces (upstream name). The
// proxy must create them right after it creates a namespace for the tenant,
// impersonating the tenant admin who asked: TenantClusterClusterRole allows
// exactly that (create rolebindings, bind ClusterRoles) and TenantPolicy
// confines it to the tenant's namespaces.
func NamespaceRBAC(tenant *tenantapi.Tenant, namespace string) ([]*rbacv1.RoleBinding, error) {
	t, err := tenant.TenantOf()
	if err != nil {
		return nil, err
	}
	if !t.Owns(namespace) {
		return nil, fmt.Errorf("namespace %q does not belong to tenant %q (it lacks the prefix %q)", namespace, t, t.Prefix())
	}
	return []*rbacv1.RoleBinding{{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.NamespaceAdminsRoleBinding, Namespace: namespace, Labels: tenantapi.TenantManagedLabels(t)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantAdminClusterRole},
		Subjects:   adminSubjects(t, tenant.Spec.Admins),
	}}, nil
}

// TenantClusterRoles returns the tenant's own copies of the standard
// ClusterRoles (StandardClusterRoles), upstream "<tenant>-<name>", labeled as
// the tenant's. clusterRole gives the cluster's role of that name (nil for
// cluster-admin, which is always everything).
//
// admin, edit and view are aggregated, as the cluster's are: each collects
// the tenant's ClusterRoles labeled, upstream,
// translate.TenantAggregateLabelPrefix+name = "true" (in the tenant's view
// rbac.authorization.k8s.io/aggregate-to-<name>, see translate.LabelKeyMapping),
// never the cluster's; it carries the cluster's role's aggregation labels in
// that form (edit aggregates into admin, view into edit). Its base rules, the
// cluster role's (flattened: the cluster's aggregated rules included), are
// in the tenant's "system:aggregate-to-<name>" (AggregateBaseClusterRole),
// labeled to aggregate into it, as in a cluster of its own.
func TenantClusterRoles(t translate.Tenant, clusterRole func(name string) *rbacv1.ClusterRole) []*rbacv1.ClusterRole {
	out := make([]*rbacv1.ClusterRole, 0, 2*len(tenantapi.StandardClusterRoles))
	for _, name := range tenantapi.StandardClusterRoles {
		if name == "cluster-admin" {
			out = append(out, &rbacv1.ClusterRole{
				TypeMeta:   clusterRoleType,
				ObjectMeta: metav1.ObjectMeta{Name: t.Prefix() + name, Labels: tenantapi.TenantManagedLabels(t)},
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
					{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}},
				},
			})
			continue
		}
		std := clusterRole(name)
		labels := tenantapi.TenantManagedLabels(t)
		for k, v := range std.Labels {
			if rest, ok := strings.CutPrefix(k, translate.AggregateLabelPrefix); ok {
				labels[translate.TenantAggregateLabelPrefix+rest] = v
			}
		}
		out = append(out, &rbacv1.ClusterRole{
			TypeMeta:        clusterRoleType,
			ObjectMeta:      metav1.ObjectMeta{Name: t.Prefix() + name, Labels: labels},
			AggregationRule: StandardAggregationRule(t, name),
		})
		baseLabels := tenantapi.TenantManagedLabels(t)
		baseLabels[translate.TenantAggregateLabelPrefix+name] = "true"
		out = append(out, &rbacv1.ClusterRole{
			TypeMeta:   clusterRoleType,
			ObjectMeta: metav1.ObjectMeta{Name: t.Prefix() + AggregateBaseClusterRole(name), Labels: baseLabels},
			Rules:      std.Rules,
		})
	}
	return out
}

// waitStandardRoles waits until the tenant's aggregated standard roles
// (TenantClusterRoles) hold the rules of their bases, so that a binding to
// "admin" made right after create grants what it says. Create writes them
// with those rules (settleAggregation), so this normally reads each once;
// it still waits for the cluster's aggregation controller should the roles
// have been written otherwise.
func (c *Client) waitStandardRoles(ctx context.Context, t translate.Tenant, roles []*rbacv1.ClusterRole) error {
	byName := map[string]*rbacv1.ClusterRole{}
	for _, r := range roles {
		byName[r.Name] = r
	}
	for _, name := range tenantapi.StandardClusterRoles {
		base, ok := byName[t.Prefix()+AggregateBaseClusterRole(name)]
		if !ok {
			continue // cluster-admin
		}
		if err := c.waitAggregated(ctx, t.Prefix()+name, base.Name, base.Rules); err != nil {
			return err
		}
	}
	return nil
}

// AggregateBaseClusterRole names, tenant-local, the ClusterRole that holds
// the base rules of the tenant's aggregated standard role name
// (TenantClusterRoles), as "system:aggregate-to-<name>" does in a cluster.
func AggregateBaseClusterRole(name string) string { return "system:aggregate-to-" + name }

func adminSubjects(t translate.Tenant, admins []string) []rbacv1.Subject {
	admins = slices.Clone(admins)
	slices.Sort(admins)
	subjects := make([]rbacv1.Subject, 0, len(admins))
	for _, a := range slices.Compact(admins) {
		subjects = append(subjects, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: t.UpstreamUser(a)})
	}
	return subjects
}
