package policyctl

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PriorityGrantRoleBinding names the RoleBinding, in a tenant's
// MembershipNamespace, of its priority grant.
const PriorityGrantRoleBinding = "zoo-tenant-priority"

// PriorityGrantClusterRole names the ClusterRole of a tenant's priority
// grant. It is cluster-scoped and does not carry the tenant's prefix, so the
// tenant cannot change it (TenantPolicy), though the tenant holds every
// right in the namespace of the binding.
func PriorityGrantClusterRole(t translate.Tenant) string { return priorityGrant.role(t) }

// PriorityGrantTenantLabel marks the ClusterRole of a tenant's priority
// grant with the tenant's name. The role is the platform's, not the
// tenant's, so it does not carry translate.TenantLabel: every ClusterRole
// aggregation selector of the tenant requires that label (translate,
// aggregationRule; TenantPolicy rule 5), and would otherwise copy the
// grant's rule into a role of the tenant.
const PriorityGrantTenantLabel = translate.APIGroup + "/priority-grant-of"

// priorityGrant lets the pods of a tenant use cluster PriorityClasses of
// positive value (PriorityPolicy asks the authorizer).
var priorityGrant = registryGrant{resource: admissionrules.PriorityClassResource, binding: PriorityGrantRoleBinding,
	rolePrefix: "zoo-tenant-priority-", ownerLabel: PriorityGrantTenantLabel, who: "the pods of tenant", noun: "PriorityClass"}

// PriorityGrant returns the objects that let the pods of tenant t use the
// cluster PriorityClasses classes: a ClusterRole granting `use` of them
// (PriorityClassResource) and a RoleBinding of it to the registry identity
// in t's MembershipNamespace (registryGrant).
func PriorityGrant(t translate.Tenant, classes []string) (*rbacv1.ClusterRole, *rbacv1.RoleBinding) {
	return priorityGrant.objects(t, classes)
}
