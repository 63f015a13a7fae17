package localproxy

import "net/http"

// crdServerRole gives the proxy's own identity its rights on the objects
// of a cluster-scoped CRD the tenant has just written (tenant_group_role.go).
type crdServerRole struct{}

func (crdServerRole) after(p *Proxy, x *exchange, resp *http.Response) {
	if isCRDWrite(x.u) {
		resp.Body = p.afterCRDWrite(x.r.Context(), x.w, resp.Body)
	}
}
