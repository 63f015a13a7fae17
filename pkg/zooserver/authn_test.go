package zooserver

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestAuthnReadyWaitsForEveryCA: with a zoo CA file (loaded at once) the
// server is not ready until the cluster's client CA has arrived too, so a
// kubernetes-signed certificate is never refused by a ready replica; a
// cluster that publishes no client CA (no ConfigMap, or no key in it) does
// not keep the server from being ready.
func TestAuthnReadyWaitsForEveryCA(t *testing.T) {
	tests := []struct {
		name string
		data map[string]string // nil: no ConfigMap
		// clusterCA is whether kubernetes-signed certificates are
		// accepted once ready.
		clusterCA bool
	}{
		{name: "the cluster publishes its client CA", data: map[string]string{clientCAKey: "the test's CA"}, clusterCA: true},
		{name: "the ConfigMap has no client CA", data: map[string]string{"requestheader-client-ca-file": "x"}},
		{name: "no ConfigMap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zooCA, clusterCA := newTestCA(t), newTestCA(t)
			caFile := filepath.Join(t.TempDir(), "zoo-ca.crt")
			require.NoError(t, os.WriteFile(caFile, zooCA.pem, 0o600))
			client := fake.NewClientset()
			a, err := newAuthn(client, client, caFile)
			require.NoError(t, err)
			bob := clusterCA.client(t, "zoo:acme:bob", []string{"zoo:tenant:acme"}, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
			alice := zooCA.client(t, "zoo:acme:alice", []string{"zoo:tenant:acme"}, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
			_, ok, _ := a.certs.AuthenticateRequest(request(t.Context(), bob, ""))
			require.False(t, ok, "no cluster CA yet")
			assert.False(t, a.ready(), "not started: the zoo CA alone must not make the server ready")

			// Published before start: the fake clientset can lose an event
			// between an informer's list and its watch.
			if tt.data != nil {
				if ca, ok := tt.data[clientCAKey]; ok && ca != "" {
					tt.data[clientCAKey] = string(clusterCA.pem)
				}
				_, err = client.CoreV1().ConfigMaps(authenticationConfigMapNamespace).Create(t.Context(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: authenticationConfigMapName}, Data: tt.data,
				}, metav1.CreateOptions{})
				require.NoError(t, err)
			}
			a.start(t.Context())
			require.Eventually(t, a.ready, 10*time.Second, 10*time.Millisecond)
			_, ok, err = a.certs.AuthenticateRequest(request(t.Context(), bob, ""))
			assert.Equal(t, tt.clusterCA, ok, "%v", err)
			_, ok, err = a.certs.AuthenticateRequest(request(t.Context(), alice, ""))
			assert.True(t, ok, "%v", err)
		})
	}
}
