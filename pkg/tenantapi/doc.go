// Package tenantapi is the Tenant record and its vocabulary: the Tenant type
// (spec, status, sleep state) and its GroupVersionResource, the names and
// labels of what kubectl-zoo applies for the cluster and for a tenant, the
// validation of tenant-local user and group names, and the policy a record
// stores (PolicyOf, EffectivePolicy).
//
// It holds no logic that writes to a cluster, so every other package (the
// proxy, the server, the certificate authority, tenantctl) can import it.
package tenantapi
