package zooserver

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ServeHTTP serves the health and metrics endpoints, and every other
// request as the tenant identity of the caller's credential.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/livez":
		writeText(w, http.StatusOK, "ok")
		return
	case "/readyz":
		switch {
		case s.draining.Load():
			writeText(w, http.StatusServiceUnavailable, "shutting down")
		case !s.tenants.synced():
			writeText(w, http.StatusServiceUnavailable, "tenant records not synced yet")
		case !s.authn.ready():
			writeText(w, http.StatusServiceUnavailable, "client CAs not loaded yet")
		default:
			writeText(w, http.StatusOK, "ok")
		}
		return
	case "/metrics":
		s.serveMetrics(w, r)
		return
	}
	start := time.Now()
	resp, ok, err := s.authn.AuthenticateRequest(r)
	if !ok {
		if err != nil {
			klog.V(2).InfoS("authentication failed", "error", err, "remote", r.RemoteAddr)
		}
		s.unauthorized(w, "Unauthorized: present a tenant's client certificate or a tenant ServiceAccount's token")
		return
	}
	who := resp.User
	if tenant, ok := platformobj.IsCertUser(who.GetName()); ok { // certuser.go
		leaf, why := verifiedLeafOf(r, who.GetName())
		if leaf != nil {
			who, why = s.tenants.certIdentity(tenant, leaf)
		}
		if why != "" && leaf != nil {
			why = "certificate of tenant " + tenant + ": " + why
		}
		if why != "" {
			s.unauthorized(w, "Unauthorized: "+why)
			return
		}
	}
	id, err := identityOf(who)
	if err != nil {
		s.unauthorized(w, "Unauthorized: "+err.Error())
		return
	}
	if ns, ok := serviceAccountNamespace(who.GetName()); ok {
		owned, err := s.namespaces.owns(r.Context(), id.Tenant, ns)
		if err != nil {
			klog.ErrorS(err, "judging a ServiceAccount", "namespace", ns)
			writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
				Reason: metav1.StatusReasonServiceUnavailable, Message: "the server could not judge this ServiceAccount; try again"})
			return
		}
		if !owned {
			s.unauthorized(w, "Unauthorized: the namespace of "+strconv.Quote(who.GetName())+" is not one of tenant "+
				strconv.Quote(id.Tenant.Name())+"'s")
			return
		}
	}
	judgedAt := s.proxies.generation()
	exists, admin := s.tenants.lookup(id.Tenant.Name(), id.User)
	if !exists {
		s.unauthorized(w, "Unauthorized: tenant "+strconv.Quote(id.Tenant.Name())+" does not exist")
		return
	}
	if leaf, ok := clientCert(r); ok {
		if why := s.tenants.refusesCertificate(id.Tenant.Name(), leaf); why != "" {
			s.unauthorized(w, "Unauthorized: "+why)
			return
		}
	}
	info := translate.ParseRequestInfo(r.Method, r.URL.Path, r.URL.Query())
	ticket, ok := s.admit(w, r, id.Tenant.Name(), info, start) // fairshare.go
	if !ok {
		return
	}
	defer ticket.Done()
	p, err := s.proxies.get(id, admin, judgedAt)
	if err != nil {
		klog.ErrorS(err, "making a tenant proxy", "tenant", id.Tenant, "user", id.User)
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Reason: metav1.StatusReasonInternalError, Message: "the server could not serve this identity"})
		return
	}
	tenant, verb := id.Tenant.Name(), verbLabel(info)
	if !s.wakeIdle(w, r, tenant, p) { // sleep.go
		return
	}
	inflight := s.metrics.inflight.WithLabelValues(tenant)
	inflight.Inc()
	defer inflight.Dec()
	if verb == "watch" {
		watches := s.metrics.watches.WithLabelValues(tenant)
		watches.Inc()
		defer watches.Dec()
	}
	var out localproxy.Outcome
	p.ServeAuthenticated(w, r, &out)
	s.metrics.observe(tenant, verb, resourceLabel(info, out.Code), out.Code, time.Since(start).Seconds())
	if v := klog.V(2); v.Enabled() {
		v.InfoS("request", "tenant", tenant, "user", id.User, "verb", info.Verb, "resource", resourceName(info),
			"namespace", info.Namespace, "code", out.Code, "latency", time.Since(start).Round(time.Microsecond))
	}
	if mutating(info.Verb) {
		s.audit.write(id, info, &out, start)
	}
}

// clientCert is the client certificate the caller presented, if any. When it presented one the
// authenticator verified, that certificate is the credential; one it did not
// verify (a token authenticated instead) can only get the caller refused.
func clientCert(r *http.Request) (*x509.Certificate, bool) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false
	}
	return r.TLS.PeerCertificates[0], true
}

// unauthorized answers 401 with a Status, as the API server does.
func (s *Server) unauthorized(w http.ResponseWriter, msg string) {
	s.metrics.unauthorized.Inc()
	writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized,
		Reason: metav1.StatusReasonUnauthorized, Message: msg})
}

// serveMetrics serves /metrics to callers the upstream allows `get` on the
// non-resource URL /metrics (a SubjectAccessReview, as Kubernetes'
// components delegate it). Tenant identities hold no such right.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	resp, ok, _ := s.authn.AuthenticateRequest(r)
	if !ok {
		s.unauthorized(w, "Unauthorized")
		return
	}
	u := resp.User
	_, certUser := platformobj.IsCertUser(u.GetName())
	if _, err := identityOf(u); err == nil || certUser {
		// A tenant identity never holds this right: refused without a
		// SubjectAccessReview, so tenants cannot spend the server's own
		// upstream rate (which TokenReviews share) by scraping.
		metricsForbidden(w, u)
		return
	}
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range u.GetExtra() {
		extra[k] = v
	}
	review, err := s.client.AuthorizationV1().SubjectAccessReviews().Create(r.Context(), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: extra,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Reason: metav1.StatusReasonInternalError, Message: "access review failed: " + err.Error()})
		return
	}
	if !review.Status.Allowed {
		metricsForbidden(w, u)
		return
	}
	s.metrics.serve.ServeHTTP(w, r)
}

func metricsForbidden(w http.ResponseWriter, u user.Info) {
	writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
		Reason: metav1.StatusReasonForbidden, Message: `forbidden: ` + strconv.Quote(u.GetName()) + ` may not get path "/metrics"`})
}

func writeText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(text))
}

func writeStatus(w http.ResponseWriter, st *metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	b, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(b)
}
