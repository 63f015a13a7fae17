// Package upstream is the administrator's client of the shared (upstream)
// cluster and the verbs every purpose package shares: Client and
// NewClient, server-side apply of kubectl-zoo's objects (ToUnstructured,
// Client.Apply), paged lists (ListPaged), the installation check and the
// Tenant record's read (Client.TenantRecord, Client.ReadTenant).
//
// It imports none of the purpose packages (pkg/tenantctl, its policy,
// users, install and transfer parts): they embed Client in their own
// client and hang their methods there. The Tenant record's types and
// names are pkg/tenantapi's.
package upstream
