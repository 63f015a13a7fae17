package localproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// TestMissingNamespace: a tenant admin asking in a namespace of its own that
// does not exist is answered as a real cluster answers its admin; a 403
// stays a 403 for anybody who may not read the tenant's namespaces, and when
// the namespace exists.
func TestMissingNamespace(t *testing.T) {
	forbidden := `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"forbidden"}`
	// The fake upstream: acme-prod exists, acme-nope does not; only the
	// admin may read namespaces; every request inside a namespace is refused.
	handler := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		admin := r.Header.Get("Impersonate-User") == "zoo:acme:admin"
		switch {
		case r.URL.Path == "/api/v1/namespaces" && r.Header.Get("Impersonate-User") == "":
			fakeNamespaces(w)
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/") && strings.Count(r.URL.Path, "/") == 4:
			switch {
			case !admin:
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, forbidden)
			case strings.HasSuffix(r.URL.Path, "/acme-nope"):
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"namespaces \"acme-nope\" not found"}`)
			default:
				_, _ = io.WriteString(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"acme-prod"}}`)
			}
		default:
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, forbidden)
		}
	}
	ts := httptest.NewServer(http.HandlerFunc(handler))
	t.Cleanup(ts.Close)
	proxyFor := func(user string) *Proxy {
		p, err := New(Config{Upstream: &rest.Config{Host: ts.URL}, Tenant: "acme", User: user, Token: testToken})
		require.NoError(t, err)
		return p
	}
	admin, dev := proxyFor(""), proxyFor("dev")
	table := map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"}

	for _, tc := range []struct {
		name, method, path string
		p                  *Proxy
		header             map[string]string
		code               int
		want               string
	}{
		{"get", "GET", "/api/v1/namespaces/nope/configmaps/x", admin, nil, 404, `configmaps \"x\" not found`},
		{"get in a group", "GET", "/apis/apps/v1/namespaces/nope/deployments/web", admin, nil, 404, `deployments.apps \"web\" not found`},
		{"create", "POST", "/api/v1/namespaces/nope/configmaps", admin, nil, 404, `namespaces \"nope\" not found`},
		{"delete", "DELETE", "/api/v1/namespaces/nope/configmaps/x", admin, nil, 404, `configmaps \"x\" not found`},
		{"subresource", "GET", "/api/v1/namespaces/nope/pods/x/log", admin, nil, 404, `pods \"x\" not found`},
		{"list", "GET", "/api/v1/namespaces/nope/configmaps", admin, nil, 200, `"items":[]`},
		{"list as a Table", "GET", "/api/v1/namespaces/nope/configmaps", admin, table, 200, `"rows":[]`},
		{"watch stays refused", "GET", "/api/v1/namespaces/nope/configmaps?watch=true", admin, nil, 403, "Forbidden"},
		{"the namespace exists", "GET", "/api/v1/namespaces/prod/configmaps/x", admin, nil, 403, "Forbidden"},
		{"not an admin", "GET", "/api/v1/namespaces/nope/configmaps/x", dev, nil, 403, "Forbidden"},
		{"not an admin creates", "POST", "/api/v1/namespaces/nope/configmaps", dev, nil, 403, "Forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := ""
			if tc.method == "POST" {
				body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`
			}
			rec := request(tc.p, tc.method, tc.path, tc.header, body)
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), tc.want)
			assert.NotContains(t, rec.Body.String(), "acme-")
			if tc.code == 404 {
				var st map[string]any
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
				assert.Equal(t, "NotFound", st["reason"])
			}
		})
	}
}
