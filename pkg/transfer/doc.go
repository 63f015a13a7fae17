// Package transfer is `kubectl zoo tenant export` and `tenant import`: it
// reads what a tenant owns through the tenant's own view (the proxy),
// cleans it of what the cluster set (status, uids, the platform's keys),
// orders it for applying, writes and reads it as manifests, and applies it
// through another tenant's view.
//
// It talks to the upstream only to tell a shared object the tenant owns
// (export_shared.go). Tenant lifecycle is pkg/tenantctl's; the kinds an
// export takes come from the kinds table (pkg/translate).
package transfer
