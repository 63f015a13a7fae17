package server_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// clientWithHeaders is a clientset for kubeconfig that adds headers to
// every request.
func clientWithHeaders(t *testing.T, kubeconfig string, headers map[string]string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			for k, v := range headers {
				r.Header.Set(k, v)
			}
			return rt.RoundTrip(r)
		})
	}
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return client
}

// TestAttackTokensAndHeaders: tokens for another audience or carried where
// the server does not read them authenticate no one; a certificate and a
// token of different tenants in one request act as the certificate's
// identity only (as the API server orders its authenticators); headers an
// upstream might trust (X-Remote-*) change nothing.
func TestAttackTokensAndHeaders(t *testing.T) {
	lb, _ := twoReplicas(t)
	ctx := t.Context()
	admin := framework.AdminClient(t)
	acmeToken := serviceAccountToken(t, "acme-default", "attacker")
	betaToken := serviceAccountToken(t, "beta-default", "victim")

	t.Run("token for another audience", func(t *testing.T) {
		tr, err := admin.CoreV1().ServiceAccounts("acme-default").CreateToken(ctx, "attacker", &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}, ExpirationSeconds: ptr.To[int64](600)}}, metav1.CreateOptions{})
		require.NoError(t, err)
		client := clientFor(t, framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: tr.Status.Token}))
		_, err = client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		assert.True(t, apierrors.IsUnauthorized(err), "got %v", err)
	})
	t.Run("token in the WebSocket protocol header", func(t *testing.T) {
		proto := "base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte(acmeToken))
		client := clientWithHeaders(t, framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{}),
			map[string]string{"Sec-WebSocket-Protocol": proto})
		_, err := client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		assert.True(t, apierrors.IsUnauthorized(err), "got %v", err)
	})
	t.Run("ServiceAccount of a platform namespace with acme's prefix", func(t *testing.T) {
		// The platform's namespace, made after the tenant (as cert-manager
		// would be after a tenant named cert): the prefix is acme's, the
		// namespace is not.
		_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme-platformagent"}}, metav1.CreateOptions{})
		if err != nil {
			require.True(t, apierrors.IsAlreadyExists(err), "%v", err)
		}
		token := serviceAccountToken(t, "acme-platformagent", "agent")
		client := clientFor(t, framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: token}))
		_, err = client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		assert.True(t, apierrors.IsUnauthorized(err), "got %v", err)
		require.NoError(t, admin.CoreV1().Namespaces().Delete(ctx, "acme-platformagent", metav1.DeleteOptions{}))
	})
	t.Run("acme's certificate with beta's token", func(t *testing.T) {
		auth := framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme")
		auth.Token = betaToken
		kubeconfig := framework.ServerKubeconfigFor(t, lb.URL(), auth)
		assert.Equal(t, "admin", framework.KubectlAs(t, kubeconfig, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"))
		client := clientWithHeaders(t, kubeconfig, map[string]string{
			"Sec-WebSocket-Protocol": "base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte(betaToken))})
		_, err := client.CoreV1().ConfigMaps("default").Create(ctx, configMap("mixed-credentials"), metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = admin.CoreV1().ConfigMaps("acme-default").Get(ctx, "mixed-credentials", metav1.GetOptions{})
		assert.NoError(t, err, "the certificate's tenant wrote it")
		_, err = admin.CoreV1().ConfigMaps("beta-default").Get(ctx, "mixed-credentials", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "beta's token wrote nothing: %v", err)
	})
	t.Run("front-proxy headers", func(t *testing.T) {
		kubeconfig := framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: acmeToken})
		client := clientWithHeaders(t, kubeconfig, map[string]string{"X-Remote-User": "system:admin", "X-Remote-Group": "system:masters",
			"X-Remote-Extra-Scopes": "cluster-admin"})
		review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.Equal(t, "system:serviceaccount:default:attacker", review.Status.UserInfo.Username)
		assert.NotContains(t, review.Status.UserInfo.Groups, "system:masters")
		_, err = client.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
		assert.True(t, apierrors.IsForbidden(err), "an acme ServiceAccount with no rights: %v", err)
		_, err = client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "front-proxy-node"}}, metav1.CreateOptions{})
		assert.True(t, apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err), "got %v", err)
	})
	_, err := admin.CoreV1().Nodes().Get(ctx, "front-proxy-node", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

// TestAttackAuditAndEndpoints: names a tenant chooses cannot forge audit
// lines, and the unauthenticated endpoints and /metrics tell a tenant
// nothing of the server's identity or of other tenants.
func TestAttackAuditAndEndpoints(t *testing.T) {
	setup(t)
	r := framework.StartReplica(t)
	auth := framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme")
	client := clientFor(t, framework.ServerKubeconfigFor(t, "https://"+r.Addr, auth))
	forged := "x\n{\"tenant\":\"beta\",\"user\":\"admin\",\"verb\":\"delete\"}\r\n"
	err := client.CoreV1().ConfigMaps("default").Delete(t.Context(), forged, metav1.DeleteOptions{})
	require.Error(t, err)
	_, err = client.CoreV1().ConfigMaps("default").Create(t.Context(), configMap(forged+strings.Repeat("y", 64<<10)), metav1.CreateOptions{})
	require.Error(t, err)
	_, err = client.CoreV1().ConfigMaps("default").Create(t.Context(), configMap("audit-marker"), metav1.CreateOptions{})
	require.NoError(t, err)

	var lines int
	var longName bool
	require.Eventually(t, func() bool {
		f, err := os.Open(r.AuditLog)
		require.NoError(t, err)
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		lines = 0
		marker := false
		longName = false
		for sc.Scan() {
			var line map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "every audit line is one JSON object: %q", sc.Text())
			assert.Equal(t, "acme", line["tenant"], "%q", sc.Text())
			assert.Less(t, len(sc.Bytes()), 4<<10, "a tenant does not decide how long an audit line is")
			if strings.HasPrefix(fmt.Sprint(line["name"]), forged+"y") {
				longName = true
				assert.Equal(t, true, line["truncated"], "the 64 KiB name is cut and marked")
			}
			marker = marker || line["name"] == "audit-marker"
			lines++
		}
		require.NoError(t, sc.Err())
		return marker
	}, 30*time.Second, 100*time.Millisecond)
	assert.Equal(t, 3, lines, "one line per request")
	assert.True(t, longName, "the create with a 64 KiB name left its (cut) line")

	for _, path := range []string{"/livez", "/readyz"} {
		code, body := r.Get(t, path, nil, nil)
		assert.Equal(t, http.StatusOK, code)
		assert.Equal(t, "ok", body)
	}
	code, body := r.Get(t, "/metrics", auth.ClientCertificateData, auth.ClientKeyData)
	assert.Equal(t, http.StatusForbidden, code, body)
	for _, leak := range []string{"zoo-server", "serviceaccount", "beta", "zoo_server_"} {
		assert.NotContains(t, body, leak)
	}
	code, body = r.Get(t, "/metrics", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, body)
}
