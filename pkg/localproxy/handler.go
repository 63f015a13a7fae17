package localproxy

import (
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// maxBodyBytes bounds a request body (the API server's own limit is 3 MiB
// for most objects; apply patches can be larger).
const maxBodyBytes = 64 << 20

// ServeHTTP authenticates, translates and forwards one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	x := newExchange(w, r)
	verb, resource := strings.ToLower(r.Method), r.URL.Path
	if v := klog.V(2); v.Enabled() { // no arguments to box at lower levels
		defer func() {
			v.InfoS("request", "tenant", p.tenant.Name(), "verb", verb, "resource", resource,
				"path", r.URL.Path, "code", x.rec.code, "latency", time.Since(start).Round(time.Microsecond))
		}()
	}
	if !p.authenticated(r) {
		writeStatus(&x.rec, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized,
			Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized: present the bearer token of the kubeconfig `kubectl zoo serve` wrote"})
		return
	}
	ticket, ok := p.admit(&x.rec, r) // fairshare.go
	if !ok {
		return
	}
	defer ticket.Done()
	p.serveAuthenticated(x, &verb, &resource, nil)
}

// ServeAuthenticated translates and forwards one request whose caller the
// server in front of the proxy has already authenticated as the proxy's
// identity (pkg/zooserver): it checks no bearer token, and it strips the
// caller's Authorization and Impersonate-* headers like ServeHTTP. out,
// when not nil, receives what was done (given as an argument, not in r's
// context: no copy of the request per request).
func (p *Proxy) ServeAuthenticated(w http.ResponseWriter, r *http.Request, out *Outcome) {
	verb, resource := strings.ToLower(r.Method), r.URL.Path
	p.serveAuthenticated(newExchange(w, r), &verb, &resource, out)
}

func (p *Proxy) serveAuthenticated(x *exchange, verb, resource *string, out *Outcome) {
	r := x.r // the tenant's request, whatever identity the behaviours choose
	upgrade := httpstream.IsUpgradeRequest(r)
	sanitizeHeaders(r.Header, upgrade)
	var yw *yamlWriter
	if !upgrade && preferYAML(r.Header.Get("Accept")) { // yaml.go
		yw = &yamlWriter{ResponseWriter: &x.rec}
		x.w = yw
	}
	p.serve(x, upgrade, yw, verb, resource)
	if yw != nil {
		yw.finish()
	}
	if out != nil {
		out.record(x.u, r, x.body, x.rec.code)
	}
}

// serve reads, translates and carries out an authenticated request, the
// pipeline of pipeline.go; yw, when set, turns JSON answers into YAML. verb
// and resource are set for the log. It leaves in x the upstream request
// (nil when the request was refused before translation) and the tenant's
// body.
func (p *Proxy) serve(x *exchange, upgrade bool, yw *yamlWriter, verb, resource *string) {
	if !upgrade && !readBody(x) {
		return
	}
	r := x.r
	u, err := p.tr.TranslateRequest(translate.Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header, Body: x.body})
	if err != nil {
		writeStatus(x.w, translate.ToStatus(err))
		return
	}
	x.u = u
	*verb, *resource = describe(u)
	if yw != nil && streamed(u) {
		yw.pass = true
	}
	defer x.release()
	switch {
	case upgrade:
		if st := upgradeRefusal(r, u); st != nil { // upgrade.go
			writeStatus(x.w, st)
			return
		}
		p.serveUpgrade(x.w, r, u)
	case p.runBefore(x):
		return
	default:
		p.handle(x)
	}
}

// readBody reads the tenant's request body into x, and answers the request
// when it could not.
func readBody(x *exchange) bool {
	if x.r.Body == nil {
		return true
	}
	var err error
	x.body, err = io.ReadAll(io.LimitReader(x.r.Body, maxBodyBytes+1))
	if err != nil {
		writeStatus(x.w, badRequest(fmt.Sprintf("reading the request body: %v", err)))
		return false
	}
	if len(x.body) > maxBodyBytes {
		writeStatus(x.w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusRequestEntityTooLarge,
			Reason: metav1.StatusReasonRequestEntityTooLarge, Message: "the request body is too large"})
		return false
	}
	return true
}

// handle carries out a request the before-behaviours left: by its plan
// (the fanned-out lists and watches, the shared list, the patch in the
// tenant's view), else forwarded.
func (p *Proxy) handle(x *exchange) {
	u := x.u
	switch u.Plan {
	case translate.PlanFanOut:
		if u.Info.Verb == "watch" {
			p.fanOutWatch(x.w, x.r, u)
		} else {
			p.fanOutList(x.w, x.r, u)
		}
	case translate.PlanSharedList:
		p.sharedList(x.w, x.r, u)
	case translate.PlanPatchInView:
		p.patchInView(x) // patch_view.go
	default:
		p.forward(x)
	}
}

// describe names the verb and resource of a request for the log.
func describe(u *translate.UpstreamRequest) (string, string) {
	i := u.Info
	if !i.IsResourceRequest {
		return i.Verb, i.Path
	}
	res := i.Resource
	if i.APIGroup != "" {
		res += "." + i.APIGroup
	}
	if i.Subresource != "" {
		res += "/" + i.Subresource
	}
	return i.Verb, res
}

// authenticated checks the local bearer token in constant time.
func (p *Proxy) authenticated(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	const scheme = "bearer "
	if len(auth) < len(scheme) || !strings.EqualFold(auth[:len(scheme)], scheme) {
		return false
	}
	got := strings.TrimSpace(auth[len(scheme):])
	if p.cfg.Token == "" { // served through ServeAuthenticated only
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(p.cfg.Token)) == 1
}

// sanitizeHeaders removes what a local client may never send upstream: every
// header named in Connection (so that no hop-by-hop trick can later strip the
// proxy's own impersonation), Authorization and every Impersonate-* header.
// An upgrade keeps its Upgrade header and a plain "Connection: Upgrade".
func sanitizeHeaders(h http.Header, upgrade bool) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			name = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
			if name == "" || (upgrade && name == "Upgrade") {
				continue
			}
			h.Del(name)
		}
	}
	h.Del("Connection")
	for _, name := range []string{"Proxy-Connection", "Keep-Alive", "Te", "Trailer", "Transfer-Encoding", "Proxy-Authorization", "Authorization"} {
		h.Del(name)
	}
	for name := range h {
		if strings.HasPrefix(strings.ToLower(name), "impersonate-") {
			delete(h, name)
		}
	}
	if upgrade {
		h.Set("Connection", "Upgrade")
	}
}
