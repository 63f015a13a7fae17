// Package policyctl brings tenants' policies into force upstream, as the
// administrator: the stored policy (ChangePolicy, TenantPolicy, the
// cluster's default), the registry grants admission reads (PriorityClasses,
// external names, volume sources), and the reconcile of the policy objects
// (ResourceQuota, LimitRange, NetworkPolicy) into every namespace of a
// tenant, with the namespace limit, the per-tenant lock and the cache the
// reconcile loops share.
//
// What lives elsewhere: `policy set` as a whole (tenantctl.SetTenantPolicy,
// tenantctl.ReconcilePolicy) is pkg/tenantctl's, because a new Pod Security
// level re-levels the tenant's membership binding; the policy document and
// its flags are pkg/policy's; the admission rules that read the grants are
// pkg/admissionrules'. It never imports pkg/tenantctl.
package policyctl
