package translate

// SleepUser is the upstream user that scales a sleeping tenant's workloads
// down and up and suspends its CronJobs (`kubectl zoo tenant sleep|wake`,
// and the server), by impersonation. Tenants' own admission policies and
// webhooks skip its requests (tenantMatchExpression), so that no tenant
// keeps itself from being put to sleep by refusing a scale to 0. It is no
// tenant identity (not "zoo:<tenant>:<user>"): neither the proxy nor the
// server ever acts as it for a tenant, and tenants may not impersonate.
const SleepUser = "kubectl-zoo:sleep"
