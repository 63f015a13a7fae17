// Package fairshare is the per-tenant fair share of kubectl-zoo's proxy
// (`kubectl zoo serve`) and server: a token bucket (qps refilled per second,
// holding at most burst) and a bound on the requests served at once
// (maxInflight), per tenant, from the tenant's policy (spec.policy.rateLimit
// of its record). A request over either limit is refused with 429
// TooManyRequests, a Kubernetes Status and a Retry-After header, which
// client-go honours (it waits and retries).
//
// Long-running requests (watch, exec, attach, port-forward, proxy, a followed
// log) take a token to start but hold no in-flight slot for their lifetime,
// as kube-apiserver's max-in-flight filter treats them.
//
// Every tenant has a state of its own, so one tenant's flood never spends
// another's tokens or slots. The states are bounded (Limiter evicts idle
// tenants, then the least recently used), and admitting a request allocates
// nothing once its tenant has a state. The package is pure: no network, no
// IO, a clock that tests replace.
package fairshare
