package platformobj

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ClusterRoleType, ClusterRoleBindingType and RoleBindingType are the
// TypeMeta of the RBAC objects kubectl-zoo applies.
var (
	ClusterRoleType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
	ClusterRoleBindingType = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"}
	RoleBindingType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"}
)

// ReadVerbs and WriteVerbs are the RBAC verbs of reading and of every
// write of a resource.
var (
	ReadVerbs  = []string{"get", "list", "watch"}
	WriteVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
)

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
	level, err := tenantapi.PodSecurityLevel(tenant)
	if err != nil {
		return nil, err
	}
	return &rbacv1.RoleBinding{
		TypeMeta:   RoleBindingType,
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
		TypeMeta:   RoleBindingType,
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
				TypeMeta:   ClusterRoleType,
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
			TypeMeta:        ClusterRoleType,
			ObjectMeta:      metav1.ObjectMeta{Name: t.Prefix() + name, Labels: labels},
			AggregationRule: StandardAggregationRule(t, name),
		})
		baseLabels := tenantapi.TenantManagedLabels(t)
		baseLabels[translate.TenantAggregateLabelPrefix+name] = "true"
		out = append(out, &rbacv1.ClusterRole{
			TypeMeta:   ClusterRoleType,
			ObjectMeta: metav1.ObjectMeta{Name: t.Prefix() + AggregateBaseClusterRole(name), Labels: baseLabels},
			Rules:      std.Rules,
		})
	}
	return out
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
