// Package verify is `kubectl zoo verify`: it makes two throwaway tenants,
// tries, as one of them, the attacks of a catalog (the Multi-Tenancy
// Benchmarks' profile level 1 and the classes of docs/security.md) against
// the other and against the platform, on every path a tenant reaches the
// cluster by, and reports for each attempt whether the boundary held and
// which layer held it. See docs/verify.md.
package verify

import (
	"slices"
	"strings"
)

// Status is the outcome of one check on one path.
type Status string

// The outcomes of a check.
const (
	// Held: the attempt was made and refused, or made harmless.
	Held Status = "held"
	// Escaped: the attempt was admitted.
	Escaped Status = "escaped"
	// NotApplicable: the tenant's policy allows what the check attempts, or
	// the path cannot make the attempt; the reason says which.
	NotApplicable Status = "not applicable"
	// CouldNotRun: the attempt could not be made or judged (a timeout, a
	// harmless twin refused too); it proves nothing.
	CouldNotRun Status = "could not run"
)

// Path is how the attacking tenant reaches the cluster.
type Path string

// The paths a tenant reaches the cluster by.
const (
	// PathServe is the tenant's view served in-process as `kubectl zoo
	// serve` serves it, as one of its admins.
	PathServe Path = "serve"
	// PathIdentity is the tenant admin's identity directly upstream
	// (impersonated).
	PathIdentity Path = "tenant identity"
	// PathServiceAccount is the token of a ServiceAccount of a tenant
	// namespace bound to zoo-tenant-admin there: a tenant pod's.
	PathServiceAccount Path = "service account"
	// PathServer is the zoo server (`install --server`) with a client
	// certificate of the attacker's admin, as `cert issue` makes one.
	PathServer Path = "server"
	// PathServerServiceAccount is the zoo server with the token of the
	// ServiceAccount of PathServiceAccount: a tenant pod's, through the
	// server.
	PathServerServiceAccount Path = "server, service account"
)

// Paths are every path, in report order.
var Paths = []Path{PathServe, PathIdentity, PathServiceAccount, PathServer, PathServerServiceAccount}

// proxied says the path goes through kubectl-zoo's proxy (serve or the
// server): it names the attacker's own objects without their prefix, and
// a refusal that names no other layer is the proxy's.
func (p Path) proxied() bool {
	return p == PathServe || p == PathServer || p == PathServerServiceAccount
}

// Result is the outcome of one check on one path.
type Result struct {
	// ID is the check's ID: a Multi-Tenancy Benchmarks ID or the class's.
	ID string `json:"id"`
	// Class groups the checks: "multi-tenancy benchmarks" or a class of
	// docs/security.md.
	Class string `json:"class"`
	// Title says what was attempted.
	Title string `json:"title"`
	// Path is how it was attempted; empty when no path could apply.
	Path Path `json:"path,omitempty"`
	// Status is the outcome.
	Status Status `json:"status"`
	// Layer names what held it: the proxy, an admission policy, Pod
	// Security, RBAC.
	Layer string `json:"layer,omitempty"`
	// Detail is the refusal's message, the reason it does not apply, or the
	// error that kept it from running.
	Detail string `json:"detail,omitempty"`
}

// Report is everything one run found.
type Report struct {
	// Attacker and Victim are the scratch tenants; with --tenant, Attacker
	// is the tenant checked and Victim is empty.
	Attacker string `json:"attacker"`
	Victim   string `json:"victim,omitempty"`
	// Results are in catalog order, each check's paths in Paths order.
	Results []Result `json:"results"`
}

// Count is how many results have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// Classes are the report's classes in the order they first appear.
func (r *Report) Classes() []string {
	var out []string
	for _, res := range r.Results {
		if !slices.Contains(out, res.Class) {
			out = append(out, res.Class)
		}
	}
	return out
}

// oneLine is s on one line, cut at n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
