package localproxy

import "net/http"

// confinedIdentity sends the requests for a tenant's objects of a confined
// kind (translate.AccessProxy) with the proxy's own identity, once the
// tenant may make them, and answers the upstream refusing that identity
// without naming it (confined.go).
type confinedIdentity struct{}

func (confinedIdentity) before(p *Proxy, x *exchange) bool {
	return isConfinedKind(x.u) && x.switchIdentity(p.asConfinedWriter(x.r, x.u))
}

func (confinedIdentity) refused(p *Proxy, x *exchange, resp *http.Response) bool {
	if !ownIdentity(x.r) {
		return false
	}
	p.confinedForbidden(x.w, x.u, readRefusal(resp))
	return true
}
