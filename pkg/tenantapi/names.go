package tenantapi

import "github.com/kubectl-zoo/kubectl-zoo/pkg/translate"

// FieldManager is the server-side apply field manager of everything
// kubectl-zoo writes.
const FieldManager = "kubectl-zoo"

// ManagedByLabel marks the objects kubectl-zoo itself applies (value
// ManagedByValue); tenants' own objects never carry it from kubectl-zoo.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "kubectl-zoo"
)

// Names of the cluster-wide objects `kubectl zoo install` applies. They all
// start with "zoo-": the tenant name "zoo" is reserved, so no tenant can ever
// own (or be confused with) them.
const (
	// TenantAdminClusterRole is bound by a RoleBinding in each tenant
	// namespace to the tenant's admins: every right inside that namespace.
	TenantAdminClusterRole = "zoo-tenant-admin"
	// TenantClusterClusterRole holds the cluster-scoped rights of tenant
	// admins; admission confines every write to the tenant's prefix.
	TenantClusterClusterRole = "zoo-tenant-cluster"
	// TenantPolicy is the ValidatingAdmissionPolicy (and its binding) that
	// confines every tenant's writes; it takes no parameters and derives the
	// tenant from the request's identity.
	TenantPolicy = "zoo-tenant"
	// IdentityPolicy is the ValidatingAdmissionPolicy (and its binding) for
	// every request made with a zoo: identity: one tenant per request, and
	// that tenant must exist.
	IdentityPolicy = "zoo-identity"
	// NamespaceAdminsRoleBinding is the RoleBinding in each tenant namespace
	// that gives the tenant's admins TenantAdminClusterRole.
	NamespaceAdminsRoleBinding = "zoo-tenant-admins"
)

// StandardNamespaces are the namespaces every tenant finds in its new
// cluster, tenant-local names.
var StandardNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// StandardClusterRoles are the cluster's ClusterRoles every tenant gets its
// own copy of (upstream "<tenant>-<name>"), tenant-local names.
var StandardClusterRoles = []string{"cluster-admin", "admin", "edit", "view"}

// MembershipRoleBinding names the RoleBinding (TenantRBAC) that makes a
// tenant a member of the cluster, in its MembershipNamespace.
const MembershipRoleBinding = "zoo-tenant-membership"

// The tenant registry identity: a ServiceAccount that need not exist, which
// every tenant's MembershipRoleBinding names. It may get tenants (and use
// the tenant's Pod Security level) exactly in the MembershipNamespace of an
// existing tenant, so the admission policies ask the authorizer about it to
// learn whether x is a tenant: one authorization of one namespace's
// bindings, never a walk over the tenants.
const (
	RegistryNamespace      = "zoo-system"
	RegistryServiceAccount = "zoo-tenant-registry"
)

// MembershipNamespaceSuffix ends the name of every tenant's
// MembershipNamespace: "<tenant>-kube-system".
const MembershipNamespaceSuffix = "-kube-system"

// MembershipNamespace is the namespace that holds the tenant's
// MembershipRoleBinding: its kube-system, which the tenant may not delete
// (as in every cluster).
func MembershipNamespace(t translate.Tenant) string { return t.Name() + MembershipNamespaceSuffix }

// MembershipClusterRole names the ClusterRole a MembershipRoleBinding of a
// tenant at Pod Security level grants the registry identity.
func MembershipClusterRole(level string) string { return "zoo-tenant-member-" + level }

// OwnerLabels are the labels that mark an upstream object as the tenant's.
func OwnerLabels(t translate.Tenant) map[string]string {
	return map[string]string{translate.TenantLabel: t.Name()}
}

// managedLabels are the labels of what kubectl-zoo applies for the cluster.
func ManagedLabels() map[string]string {
	return map[string]string{ManagedByLabel: ManagedByValue}
}

// tenantManagedLabels are the labels of what kubectl-zoo applies for a
// tenant: managed by kubectl-zoo, owned by the tenant.
func TenantManagedLabels(t translate.Tenant) map[string]string {
	l := ManagedLabels()
	l[translate.TenantLabel] = t.Name()
	return l
}
