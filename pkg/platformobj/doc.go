// Package platformobj builds what the platform writes on a tenant's behalf,
// as pure functions from a tenant (its record, its policy, a namespace's
// name) to objects, with no client calls: the admins' RoleBinding of each
// tenant namespace (NamespaceRBAC), the membership RoleBinding (TenantRBAC),
// the tenant's copies of the standard ClusterRoles and their aggregation
// rules, the server's ClusterRole for a tenant's cluster-scoped CRD, and the
// policy objects of each tenant namespace (ResourceQuota, LimitRange,
// NetworkPolicy).
//
// tenantctl (tenant create, policy reconcile) and the translating proxy
// (which writes some of them right after a tenant's request) both build them
// here, so the two cannot drift. See docs/security.md.
package platformobj
