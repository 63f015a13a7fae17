package localproxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

const testToken = "0123456789abcdef0123456789abcdef"

// upstream is a fake API server that records what reached it.
type upstream struct {
	mu       sync.Mutex
	requests []*http.Request
	handler  http.HandlerFunc
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.requests = append(u.requests, r.Clone(context.Background()))
	u.mu.Unlock()
	u.handler(w, r)
}

func (u *upstream) last() *http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.requests) == 0 {
		return nil
	}
	return u.requests[len(u.requests)-1]
}

func jsonHandler(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// newTestProxy returns a proxy for tenant acme in front of handler.
func newTestProxy(t *testing.T, handler http.HandlerFunc) (*Proxy, *upstream) {
	t.Helper()
	up := &upstream{handler: handler}
	ts := httptest.NewServer(up)
	t.Cleanup(ts.Close)
	p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Token: testToken,
		NewPolicyClient: tenantctl.PolicyClientFor})
	require.NoError(t, err)
	return p, up
}

func request(p http.Handler, method, path string, header map[string]string, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	return rec
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no upstream", Config{Tenant: "acme", Token: testToken}, "no upstream"},
		{"bad tenant", Config{Upstream: &rest.Config{Host: "https://x"}, Tenant: "Acme", Token: testToken}, "tenant"},
		{"short token", Config{Upstream: &rest.Config{Host: "https://x"}, Tenant: "acme", Token: "x"}, "token"},
		{"impersonating upstream", Config{Upstream: &rest.Config{Host: "https://x", Impersonate: rest.ImpersonationConfig{UserName: "u"}}, Tenant: "acme", Token: testToken}, "impersonates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestAuthenticationAndHeaders(t *testing.T) {
	p, up := newTestProxy(t, jsonHandler(200, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"acme-default"}}`))
	for _, tc := range []struct {
		name   string
		header map[string]string
		code   int
	}{
		{"no token", map[string]string{"Authorization": ""}, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"basic auth", map[string]string{"Authorization": "Basic " + testToken}, 401},
		{"right token", nil, 200},
		{"smuggled impersonation", map[string]string{"Impersonate-User": "system:admin", "Impersonate-Group": "system:masters", "Impersonate-Extra-Scopes": "x"}, 200},
		{"connection names the proxy's headers", map[string]string{"Connection": "Impersonate-User, Impersonate-Group, Authorization", "Impersonate-User": "system:admin"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := request(p, "GET", "/api/v1/namespaces/default/configmaps/cfg", tc.header, "")
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			if tc.code != 200 {
				assert.Contains(t, rec.Body.String(), `"kind":"Status"`)
				return
			}
			got := up.last()
			assert.Equal(t, "/api/v1/namespaces/acme-default/configmaps/cfg", got.URL.Path)
			assert.Equal(t, "Bearer upstream-secret", got.Header.Get("Authorization"))
			assert.Equal(t, "zoo:acme:admin", got.Header.Get("Impersonate-User"))
			assert.Equal(t, []string{"zoo:tenant:acme"}, got.Header.Values("Impersonate-Group"))
			assert.Empty(t, got.Header.Values("Impersonate-Extra-Scopes"))
			assert.Contains(t, rec.Body.String(), `"namespace":"default"`)
		})
	}
}

func TestTranslationErrorsAndUnreachable(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(200, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"beta-default"}}`))
	rec := request(p, "GET", "/api/v1/namespaces/default/configmaps/cfg", nil, "")
	assert.Equal(t, 404, rec.Code, "an upstream answer about another tenant's object looks absent")
	assert.NotContains(t, rec.Body.String(), "beta")

	rec = request(p, "GET", "/metrics", nil, "")
	assert.Equal(t, 403, rec.Code)

	dead, err := New(Config{Upstream: &rest.Config{Host: "https://127.0.0.1:1"}, Tenant: "acme", Token: testToken})
	require.NoError(t, err)
	rec = request(dead, "GET", "/api/v1/namespaces/default/configmaps", nil, "")
	assert.Equal(t, 503, rec.Code)
	var st map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.Equal(t, "ServiceUnavailable", st["reason"])
	assert.Contains(t, st["message"], "unreachable")
}

func TestOpenAPIIndexTranslated(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(200, `{"paths":{"apis/acme-stable.example.com/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-stable.example.com/v1?hash=AB"},"apis/beta-x.io/v1":{"serverRelativeURL":"/openapi/v3/apis/beta-x.io/v1?hash=CD"},"apis/apps/v1":{"serverRelativeURL":"/openapi/v3/apis/apps/v1?hash=EF"}}}`))
	rec := request(p, "GET", "/openapi/v3", map[string]string{"Accept": "application/json"}, "")
	require.Equal(t, 200, rec.Code)
	body := rec.Body.String()
	assert.Contains(t, body, `"apis/stable.example.com/v1"`)
	assert.Contains(t, body, "/openapi/v3/apis/stable.example.com/v1?hash=AB")
	assert.NotContains(t, body, "beta")
	assert.NotContains(t, body, "acme-")
}

// TestUntranslatableAnswerIsRefused: an answer the translator cannot read is
// never passed on, since it would show upstream names.
func TestUntranslatableAnswerIsRefused(t *testing.T) {
	p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		_, _ = io.WriteString(w, "k8s\x00 acme-default beta-default")
	})
	rec := request(p, http.MethodGet, "/api/v1/namespaces/default/configmaps/cfg", nil, "")
	assert.Equal(t, http.StatusBadGateway, rec.Code)
	assert.NotContains(t, rec.Body.String(), "beta-default")
	assert.Contains(t, rec.Body.String(), "cannot translate")
}

// TestTextFailureIsAStatus: a failure the upstream writes as text (the
// "404 page not found" of a group whose CRD is not served yet) or with no
// body reaches the tenant as the Status client-go makes of it, with the
// upstream's code, never as a 400 about a malformed body, and without the
// text, which may carry upstream names.
func TestTextFailureIsAStatus(t *testing.T) {
	cases := []struct {
		name, path, ct, body string
		code                 int
		retryAfter           string
		reason               string
		retrySeconds         float64
	}{
		{name: "group not served yet", path: "/apis/s.io/v1", ct: "text/plain; charset=utf-8", body: "404 page not found\n", code: 404, reason: "NotFound"},
		{name: "group document", path: "/apis/s.io", ct: "text/plain; charset=utf-8", body: "404 page not found\n", code: 404, reason: "NotFound"},
		{name: "openapi v3 document, no body", path: "/openapi/v3/apis/s.io/v1", code: 404, reason: "NotFound"},
		{name: "object, text naming upstream objects", path: "/api/v1/namespaces/default/configmaps/cfg", ct: "text/plain",
			body: "panic in acme-default beta-default", code: 500, reason: "InternalError"},
		{name: "throttled, retry after", path: "/api/v1/namespaces/default/configmaps", ct: "text/plain", body: "too many requests from beta-x",
			code: 429, retryAfter: "3", reason: "TooManyRequests", retrySeconds: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.ct != "" {
					w.Header().Set("Content-Type", tc.ct)
				}
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(tc.code)
				_, _ = io.WriteString(w, tc.body)
			})
			rec := request(p, http.MethodGet, tc.path, map[string]string{"Accept": "application/json"}, "")
			assert.Equal(t, tc.code, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			var st map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st), rec.Body.String())
			assert.Equal(t, "Status", st["kind"])
			assert.Equal(t, tc.reason, st["reason"])
			assert.EqualValues(t, tc.code, st["code"])
			assert.NotContains(t, rec.Body.String(), "acme-")
			assert.NotContains(t, rec.Body.String(), "beta")
			if tc.retrySeconds != 0 {
				assert.Equal(t, tc.retrySeconds, st["details"].(map[string]any)["retryAfterSeconds"])
			}
		})
	}
}
