package localproxy

import "net/http"

// tenantGroupIdentity sends the requests for cluster-scoped objects of one
// of the tenant's CRD groups with the proxy's own identity, once the tenant
// identity may use their CRD (tenant_group.go), and answers the upstream
// refusing that identity without naming it (tenant_group_role.go).
type tenantGroupIdentity struct{}

func (tenantGroupIdentity) before(p *Proxy, x *exchange) bool {
	group, ok := p.tenantGroupRequest(x.u)
	if !ok {
		return false
	}
	return x.switchIdentity(p.asOwnIdentity(x.r, x.u, group))
}

func (tenantGroupIdentity) refused(p *Proxy, x *exchange, resp *http.Response) bool {
	if !ownIdentity(x.r) {
		return false
	}
	p.ownIdentityForbidden(x.w, x.r, x.u, readRefusal(resp))
	return true
}
