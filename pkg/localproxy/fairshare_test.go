package localproxy

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// TestServeEnforcesTheRecordsFairShare: with Config.FairShare, ServeHTTP
// reads the tenant's record and answers 429 with Retry-After and a Status
// over its limits; a watch held open holds no in-flight slot; a caller
// without the token spends nothing.
func TestServeEnforcesTheRecordsFairShare(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rateLimit  string
		wantReason string
	}{
		{"max in-flight", `{"qps":1000,"burst":1000,"maxInflight":1}`, "in flight"},
		{"token bucket", `{"qps":1,"burst":2}`, "per second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started, release := make(chan struct{}, 16), make(chan struct{})
			up := &upstream{handler: func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/apis/zoo.kubectl-zoo.io/v1alpha1/tenants/acme":
					jsonHandler(200, `{"apiVersion":"zoo.kubectl-zoo.io/v1alpha1","kind":"Tenant","metadata":{"name":"acme"},
						"spec":{"policy":{"rateLimit":`+tc.rateLimit+`}}}`)(w, r)
				case r.URL.Query().Get("watch") == "true":
					started <- struct{}{}
					<-release
					jsonHandler(200, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"w","namespace":"acme-default"}}}`)(w, r)
				case strings.HasSuffix(r.URL.Path, "/slow"):
					started <- struct{}{}
					<-release
					jsonHandler(200, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"slow","namespace":"acme-default"}}`)(w, r)
				default:
					jsonHandler(200, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","namespace":"acme-default"}}`)(w, r)
				}
			}}
			ts := httptest.NewServer(up)
			defer ts.Close()
			p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Token: testToken, FairShare: true})
			require.NoError(t, err)

			for range 5 { // refused before any share is spent
				req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps/x", nil)
				rec := httptest.NewRecorder()
				p.ServeHTTP(rec, req)
				require.Equal(t, http.StatusUnauthorized, rec.Code)
			}
			done := make(chan *httptest.ResponseRecorder, 2)
			go func() { done <- request(p, http.MethodGet, "/api/v1/namespaces/default/configmaps/slow", nil, "") }()
			<-started
			go func() {
				done <- request(p, http.MethodGet, "/api/v1/namespaces/default/configmaps?watch=true", nil, "")
			}()
			<-started // the watch reached the upstream beside the slow GET

			rec := request(p, http.MethodGet, "/api/v1/namespaces/default/configmaps/x", nil, "")
			require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
			assert.Equal(t, "1", rec.Header().Get("Retry-After"))
			var st metav1.Status
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
			assert.Equal(t, metav1.StatusReasonTooManyRequests, st.Reason)
			require.NotNil(t, st.Details)
			assert.EqualValues(t, 1, st.Details.RetryAfterSeconds)
			assert.Contains(t, st.Message, tc.wantReason)
			close(release)
			assert.Equal(t, http.StatusOK, (<-done).Code)
			assert.Equal(t, http.StatusOK, (<-done).Code)
		})
	}
}
