// Package tenantctl manages tenants in the shared (upstream) cluster:
// the tenants themselves (`kubectl zoo tenant create|list|get|delete`, sleep,
// membership) and `policy set` (SetTenantPolicy, ReconcilePolicy).
//
// What lives elsewhere: the administrator's client and the verbs every
// purpose shares are pkg/upstream's (Client embeds upstream.Client); the
// cluster-side pieces `kubectl zoo install` applies (the Tenant CRD, the
// ClusterRoles of the security model, the server) are pkg/install's, and
// uninstall ends there; the generated admission rules are
// pkg/admissionrules'; tenant policies in
// force (their grants, the policy objects of every namespace, the
// namespace limit) are pkg/policyctl's; users and certificate
// grants are pkg/users'; `tenant export|import` is pkg/transfer's.
//
// The Tenant record and its names are pkg/tenantapi's; the objects the
// platform writes on a tenant's behalf are built by pkg/platformobj, which
// the translating proxy imports too. See docs/security.md.
package tenantctl
