package localproxy

import "net/http"

// aggregation switches aggregation into the tenant's standard admin, edit
// and view on when a ClusterRole written is the first of the tenant's to
// aggregate into them (aggregation.go).
type aggregation struct{}

func (aggregation) after(p *Proxy, x *exchange, resp *http.Response) {
	if !isClusterRoleWrite(x.u) {
		return
	}
	ctx, w := x.r.Context(), x.w
	resp.Body = withWholeBody(resp.Body, func(body []byte) { p.afterClusterRoleWrite(ctx, w, body) })
}
