// Package users manages who may act as a tenant upstream, as the
// administrator: the grants of upstream users to a tenant's identity
// (`kubectl zoo tenant user add|remove|list`, grants.go) and the
// certificate grants that back `kubectl zoo cert` (certgrant_apply.go,
// the certs.Granter of pkg/certs).
//
// What lives elsewhere: the certificates themselves (issue, revoke, list)
// are pkg/certs'; a tenant's policy grants (PriorityClasses, external
// names, volume sources) and the tenant's lifecycle are pkg/tenantctl's.
package users
