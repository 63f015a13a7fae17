package verify

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// TestResolveServer: the server is the Service install made, verified by
// the CA install wrote, unless the flags name them; without a Service (or
// a CA to verify it by) the server paths do not apply, and the reason says
// so.
func TestResolveServer(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: tenantapi.ServerNamespace, Name: tenantapi.ServerName}}
	ca := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenantapi.ServerNamespace, Name: tenantapi.ServerCAConfigMap},
		Data: map[string]string{tenantapi.ServerCAKey: "the install's CA"}}
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		flags   ServerEndpoint
		want    ServerEndpoint
		why     string
	}{
		{"not installed", nil, ServerEndpoint{}, ServerEndpoint{}, "the zoo server is not installed (no Service zoo-system/zoo-server"},
		{"installed", []runtime.Object{svc, ca}, ServerEndpoint{}, ServerEndpoint{URL: tenantapi.ServerURL, CAPEM: []byte("the install's CA")}, ""},
		{"a URL of the caller's", []runtime.Object{ca}, ServerEndpoint{URL: "https://zoo.example.com"},
			ServerEndpoint{URL: "https://zoo.example.com", CAPEM: []byte("the install's CA")}, ""},
		{"a URL and CA of the caller's", nil, ServerEndpoint{URL: "https://127.0.0.1:8443", CAPEM: []byte("mine")},
			ServerEndpoint{URL: "https://127.0.0.1:8443", CAPEM: []byte("mine")}, ""},
		{"no CA to verify it by", []runtime.Object{svc}, ServerEndpoint{}, ServerEndpoint{URL: tenantapi.ServerURL}, "pass --server-ca"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &tenantctl.Client{Client: &upstream.Client{Kube: fake.NewClientset(tc.objects...)}}
			got, why, err := resolveServer(context.Background(), c, tc.flags)
			require.NoError(t, err)
			if tc.why != "" {
				assert.Contains(t, why, tc.why)
				return
			}
			assert.Empty(t, why)
			assert.Equal(t, tc.want, got)
		})
	}
}
