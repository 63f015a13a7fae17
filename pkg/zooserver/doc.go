// Package zooserver is kubectl-zoo's multi-tenant server: one stateless
// process (`kubectl zoo serve --listen`) that serves every tenant's view of
// the shared cluster. It authenticates each caller — a client certificate
// naming a tenant identity, or a token the upstream's TokenReview accepts for
// a tenant ServiceAccount — maps the credential to its tenant, and hands the
// request to the translating proxy of that identity (pkg/localproxy), which
// impersonates it upstream with the server's own credential.
//
// Tenant records come from an informer; proxies are made on first use and
// bounded in number. The server exposes /livez, /readyz and /metrics, writes
// one audit line per mutating request, and drains on shutdown.
package zooserver
