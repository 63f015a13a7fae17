package localproxy

import "net/http"

// reviewIdentity creates the reviews the proxy creates for the tenant's
// admins (translate.KindRule.ProxyCreates) with the proxy's own identity,
// and answers the upstream refusing that identity without naming it
// (reviews.go).
type reviewIdentity struct{}

func (reviewIdentity) before(p *Proxy, x *exchange) bool {
	return isProxyCreate(x.u) && x.switchIdentity(p.reviewAsOwnIdentity(x.r, x.u))
}

func (reviewIdentity) refused(p *Proxy, x *exchange, _ *http.Response) bool {
	if !ownIdentity(x.r) || !isProxyCreate(x.u) {
		return false
	}
	p.ownIdentityReviewForbidden(x.w, x.u)
	return true
}
