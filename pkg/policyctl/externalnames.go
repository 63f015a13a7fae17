package policyctl

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ExternalNameGrantRoleBinding names the RoleBinding, in a tenant's
// MembershipNamespace, of its external-name grant.
const ExternalNameGrantRoleBinding = "zoo-tenant-external-names"

// ExternalNameGrantTenantLabel marks the ClusterRole of a tenant's
// external-name grant with the tenant's name (not translate.TenantLabel, as
// PriorityGrantTenantLabel).
const ExternalNameGrantTenantLabel = translate.APIGroup + "/external-names-grant-of"

// externalNameGrant lets the Services of a tenant name the external names
// its policy allows (the zoo-tenant policy asks the authorizer).
var externalNameGrant = registryGrant{resource: admissionrules.ExternalNameResource, binding: ExternalNameGrantRoleBinding,
	rolePrefix: "zoo-tenant-external-names-", ownerLabel: ExternalNameGrantTenantLabel, who: "the Services of tenant", noun: "the external name"}

// ExternalNameGrantClusterRole names the ClusterRole of a tenant's
// external-name grant; without the tenant's prefix, the tenant cannot
// change it.
func ExternalNameGrantClusterRole(t translate.Tenant) string { return externalNameGrant.role(t) }

// ExternalNameGrant returns the ClusterRole granting `use` of the names and
// its RoleBinding to the registry identity in t's MembershipNamespace.
func ExternalNameGrant(t translate.Tenant, names []string) (*rbacv1.ClusterRole, *rbacv1.RoleBinding) {
	return externalNameGrant.objects(t, names)
}
