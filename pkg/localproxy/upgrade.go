package localproxy

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiproxy "k8s.io/apimachinery/pkg/util/proxy"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// upgradeHeaders are the request headers an upgrade carries upstream besides
// passRequestHeaders: the handshakes of SPDY and WebSocket. Everything else
// the client sent (Content-Type, cookies, X-Remote-* and other headers an
// upstream might trust) stays behind.
var upgradeHeaders = []string{"Connection", "Upgrade", "X-Stream-Protocol-Version", "Sec-Websocket-Key",
	"Sec-Websocket-Version", "Sec-Websocket-Protocol", "Sec-Websocket-Extensions"}

// upgradeRefusal returns why a request with upgrade headers may not be
// forwarded as an upgrade, or nil. Only the requests the API server itself
// upgrades (u.Info.IsStreaming: exec, attach, port-forward of a pod) may:
// any other request would reach the upstream with the tenant's raw body
// and headers, past the translator. Such a request is refused rather than
// stripped of its upgrade headers, because no client sends them by mistake.
// A body before the upgrade means nothing to the API server and is refused
// too, so that no tenant bytes go upstream untranslated.
func upgradeRefusal(r *http.Request, u *translate.UpstreamRequest) *metav1.Status {
	if !u.Info.IsStreaming() {
		return badRequest("only exec, attach and port-forward of a pod may upgrade the connection; " +
			"send this request without the Connection: Upgrade and Upgrade headers")
	}
	if r.ContentLength != 0 {
		return badRequest("a request that upgrades the connection may not carry a body")
	}
	return nil
}

// serveUpgrade carries exec, attach and port-forward (WebSocket or SPDY) to
// the upstream over the HTTP/1.1 upgrade transport. The translated path and
// query replace the tenant's, only the handshake headers are kept, and the
// upgrade transport adds the caller's credentials and the impersonation.
func (p *Proxy) serveUpgrade(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	loc := p.upstreamURL(u.Path, u.Query)
	req := r.Clone(r.Context())
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery = loc.Path, "", loc.RawQuery
	req.Body, req.ContentLength = http.NoBody, 0
	req.Header = http.Header{}
	for _, names := range [][]string{passRequestHeaders, upgradeHeaders} {
		for _, name := range names {
			if v := r.Header.Values(name); len(v) > 0 {
				req.Header[name] = v
			}
		}
	}
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
