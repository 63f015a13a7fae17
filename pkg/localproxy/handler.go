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
	rec := &recorder{ResponseWriter: w, code: http.StatusOK}
	verb, resource := strings.ToLower(r.Method), r.URL.Path
	if v := klog.V(2); v.Enabled() { // no arguments to box at lower levels
		defer func() {
			v.InfoS("request", "tenant", p.tenant.Name(), "verb", verb, "resource", resource,
				"path", r.URL.Path, "code", rec.code, "latency", time.Since(start).Round(time.Microsecond))
		}()
	}
	if !p.authenticated(r) {
		writeStatus(rec, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized,
			Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized: present the bearer token of the kubeconfig `kubectl zoo serve` wrote"})
		return
	}
	ticket, ok := p.admit(rec, r) // fairshare.go
	if !ok {
		return
	}
	defer ticket.Done()
	p.serveAuthenticated(rec, r, &verb, &resource, nil)
}

// ServeAuthenticated translates and forwards one request whose caller the
// server in front of the proxy has already authenticated as the proxy's
// identity (pkg/zooserver): it checks no bearer token, and it strips the
// caller's Authorization and Impersonate-* headers like ServeHTTP. out,
// when not nil, receives what was done (given as an argument, not in r's
// context: no copy of the request per request).
func (p *Proxy) ServeAuthenticated(w http.ResponseWriter, r *http.Request, out *Outcome) {
	rec := &recorder{ResponseWriter: w, code: http.StatusOK}
	verb, resource := strings.ToLower(r.Method), r.URL.Path
	p.serveAuthenticated(rec, r, &verb, &resource, out)
}

func (p *Proxy) serveAuthenticated(rec *recorder, r *http.Request, verb, resource *string, out *Outcome) {
	upgrade := httpstream.IsUpgradeRequest(r)
	sanitizeHeaders(r.Header, upgrade)
	var w2 http.ResponseWriter = rec
	var yw *yamlWriter
	if !upgrade && preferYAML(r.Header.Get("Accept")) { // yaml.go
		yw = &yamlWriter{ResponseWriter: rec}
		w2 = yw
	}
	u, body := p.serve(w2, r, upgrade, yw, verb, resource)
	if yw != nil {
		yw.finish()
	}
	if out != nil {
		out.record(u, r, body, rec.code)
	}
}

// serve reads, translates and carries out an authenticated request; yw, when
// set, turns JSON answers into YAML. verb and resource are set for the log.
// It returns the upstream request (nil when the request was refused
// before translation) and the tenant's body.
func (p *Proxy) serve(rec http.ResponseWriter, r *http.Request, upgrade bool, yw *yamlWriter, verb, resource *string) (*translate.UpstreamRequest, []byte) {
	var body []byte
	if !upgrade && r.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if err != nil {
			writeStatus(rec, badRequest(fmt.Sprintf("reading the request body: %v", err)))
			return nil, body
		}
		if len(body) > maxBodyBytes {
			writeStatus(rec, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusRequestEntityTooLarge,
				Reason: metav1.StatusReasonRequestEntityTooLarge, Message: "the request body is too large"})
			return nil, body
		}
	}
	u, err := p.tr.TranslateRequest(translate.Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header, Body: body})
	if err != nil {
		writeStatus(rec, translate.ToStatus(err))
		return nil, body
	}
	*verb, *resource = describe(u)
	if yw != nil && streamed(u) {
		yw.pass = true
	}
	if upgrade {
		if st := upgradeRefusal(r, u); st != nil { // upgrade.go
			writeStatus(rec, st)
			return u, body
		}
	}
	if group, ok := p.tenantGroupRequest(u); ok && !upgrade {
		own, st := p.asOwnIdentity(r, u, group) // tenant_group.go
		if st != nil {
			writeStatus(rec, st)
			return u, body
		}
		r = own
	}
	if isConfinedKind(u) && !upgrade {
		own, st := p.asConfinedWriter(r, u) // confined.go
		if st != nil {
			writeStatus(rec, st)
			return u, body
		}
		r = own
	}
	if isProxyCreate(u) && !upgrade {
		own, st := p.reviewAsOwnIdentity(r, u) // reviews.go
		if st != nil {
			writeStatus(rec, st)
			return u, body
		}
		r = own
	}
	if !upgrade && p.serveClusterRoleBindings(rec, r, u, body) { // crb.go
		return u, body
	}
	if !upgrade && !p.ensureAPIAccess(rec, r, u) { // apiaccess.go
		return u, body
	}
	if !upgrade && !p.wakeFirst(rec, r, u) { // sleep.go
		return u, body
	}
	if !upgrade {
		var done func()
		if rec, done = p.withPolicies(rec, r, u); rec == nil { // tenantpolicy.go: maxns.go, tenantprop.go
			return u, body
		}
		defer done()
	}
	switch {
	case upgrade:
		p.serveUpgrade(rec, r, u)
	case isNamespaceList(u) && p.listNamespacesFromIndex(rec, r, u): // namespace_list.go
	case u.Plan == translate.PlanFanOut && u.Info.Verb == "watch":
		p.fanOutWatch(rec, r, u)
	case u.Plan == translate.PlanFanOut:
		p.fanOutList(rec, r, u)
	case u.Plan == translate.PlanSharedList:
		p.sharedList(rec, r, u)
	case u.Plan == translate.PlanPatchInView:
		p.patchInView(rec, r, u, body) // patch_view.go
	case p.answersAllNamespacesReview(rec, r, u): // reviews_all.go
	default:
		p.forward(rec, r, u)
	}
	p.forgetSharedAfterWrite(u)
	return u, body
}

// forgetSharedAfterWrite drops the cached lookups of a shared kind that the
// request wrote, so that the tenant's next request sees its own class.
func (p *Proxy) forgetSharedAfterWrite(u *translate.UpstreamRequest) {
	switch u.Info.Verb {
	case "get", "list", "watch":
		return
	}
	gr := u.Info.GroupResource()
	if rule, ok := translate.LookupKind(gr); ok && rule.Treatment == translate.Shared {
		p.shared.forget(gr)
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
