package zooserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/fake"
)

// TestMetricsRefuseTenantsWithoutReview: a tenant identity never holds
// the right to read /metrics, so the server refuses it without asking the
// upstream: otherwise each scrape a tenant sends would be one more
// SubjectAccessReview, on the same client (and rate) as every caller's
// TokenReview.
func TestMetricsRefuseTenantsWithoutReview(t *testing.T) {
	for _, u := range []*user.DefaultInfo{
		{Name: "zoo:acme:admin", Groups: []string{"zoo:tenant:acme"}},
		{Name: "system:serviceaccount:acme-default:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:acme-default"}},
	} {
		t.Run(u.Name, func(t *testing.T) {
			client := fake.NewClientset()
			s := &Server{client: client, metrics: newMetrics(func() int { return 0 }), authn: &authn{
				union: authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
					return &authenticator.Response{User: u}, true, nil
				}),
			}}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
			assert.Empty(t, client.Actions(), "no SubjectAccessReview for a tenant")
		})
	}
}
