package zooserver

import "k8s.io/apiserver/pkg/authentication/user"

// IdentityOf maps an authenticated upstream user to the tenant identity it
// is, by the rules the server applies to its callers' credentials (see
// identityOf), or refuses it. `kubectl zoo serve` uses it to recognise a
// tenant user's own credential, which it serves without impersonation.
func IdentityOf(u user.Info) (Identity, error) { return identityOf(u) }
