package zooserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// TestServiceAccountOfAPrefixedPlatformNamespace: a namespace with a
// tenant's prefix that is not labeled as the tenant's (the platform's
// cert-manager for a tenant named cert) holds no tenant ServiceAccounts:
// their tokens are a 401, not identities of the tenant.
func TestServiceAccountOfAPrefixedPlatformNamespace(t *testing.T) {
	client := fake.NewClientset(
		namespace("acme-default", map[string]string{translate.TenantLabel: "acme"}),
		namespace("acme-platform", nil),
		namespace("acme-stolen", map[string]string{translate.TenantLabel: "beta"}),
	)
	owners := newNamespaceOwners(client)
	acme := translate.MustTenant("acme")
	for ns, want := range map[string]bool{"acme-default": true, "acme-platform": false, "acme-stolen": false, "acme-missing": false} {
		got, err := owners.owns(context.Background(), acme, ns)
		require.NoError(t, err)
		assert.Equal(t, want, got, ns)
	}
	gets := len(client.Actions())
	_, err := owners.owns(context.Background(), acme, "acme-default")
	require.NoError(t, err)
	assert.Len(t, client.Actions(), gets, "an answer is cached")

	s := &Server{client: client, namespaces: owners, metrics: newMetrics(func() int { return 0 }), authn: &authn{
		union: authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
			return &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:acme-platform:agent",
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:acme-platform"}}}, true, nil
		}),
	}}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps", nil))
	assert.Equal(t, http.StatusUnauthorized, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "not one of tenant")
}
