// Package tenantctl manages tenants in the shared (upstream) cluster: the
// cluster-side pieces `kubectl zoo install` applies (the Tenant CRD, the
// ValidatingAdmissionPolicies and the ClusterRoles of the security model), and
// the tenants themselves (`kubectl zoo tenant create|list|get|delete`).
//
// It also exports the pure helpers the translating proxy needs to keep the
// security model intact when it writes on a tenant's behalf: NamespaceRBAC
// for a namespace a tenant creates (tenant ClusterRoleBindings are
// pkg/crbstore's). See docs/security.md.
package tenantctl
