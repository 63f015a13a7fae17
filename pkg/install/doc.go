// Package install is `kubectl zoo install` and `install --server`, as the
// upstream cluster's administrator: the cluster-side objects of the
// security model (InstallObjects: the Tenant CRD, the admission rules of
// pkg/admissionrules, the ClusterRoles of tenants, of the propagator and
// of sleep), the installed configuration, the server's deployment,
// certificate, RBAC and APIService, and a tenant's `kubernetes` Service.
//
// What lives elsewhere: uninstall starts in pkg/tenantctl
// (tenantctl.Client.Uninstall), which refuses while tenants exist or
// deletes them first, then calls RemoveObjects; tenant lifecycle and the
// tenant's own RBAC are pkg/tenantctl's; policies are pkg/policyctl's. It
// never imports pkg/tenantctl.
package install
