package localproxy

import (
	"net/http"

	apiproxy "k8s.io/apimachinery/pkg/util/proxy"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// serveUpgrade carries exec, attach and port-forward (WebSocket or SPDY) to
// the upstream over the HTTP/1.1 upgrade transport. The translated path and
// query replace the tenant's; the request headers were sanitized already and
// the upgrade transport adds the caller's credentials and the impersonation.
func (p *Proxy) serveUpgrade(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	loc := p.upstreamURL(u.Path, u.Query)
	req := r.Clone(r.Context())
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery = loc.Path, "", loc.RawQuery
	h := apiproxy.NewUpgradeAwareHandler(loc, p.rt, false, false, &responder{p: p})
	h.UpgradeTransport = p.upgradeRT
	h.UseLocationHost = true
	h.ServeHTTP(w, req)
}

// responder answers upgrade failures with a Status.
type responder struct{ p *Proxy }

// Error implements apiproxy.ErrorResponder.
func (e *responder) Error(w http.ResponseWriter, _ *http.Request, err error) {
	writeStatus(w, unavailable(e.p.base.Host, err))
}
