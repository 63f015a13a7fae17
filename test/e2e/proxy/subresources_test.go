package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// pod returns a bare pod for the kwok node; schedulerName "none" leaves it
// to the test to bind.
func pod(name, scheduler string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			SchedulerName: scheduler,
			Containers:    []corev1.Container{{Name: "c", Image: "registry.example/c:1"}},
		},
	}
}

// TestSubresourcesThroughProxy: binding, eviction, token and status through
// the proxy, with client-go (protobuf bodies), landing on the upstream
// objects under their prefixed names.
func TestSubresourcesThroughProxy(t *testing.T) {
	acme := serve(t, "acme")
	cs := clientFor(t, acme)
	ctx := t.Context()
	ns := "subres"
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) })
	require.Eventually(t, func() bool {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond, "the upstream never made the default ServiceAccount")

	t.Run("binding", func(t *testing.T) {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod("bind-me", "none"), metav1.CreateOptions{})
		require.NoError(t, err)
		node := framework.Cluster().NodeName
		err = cs.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: "bind-me"},
			Target:     corev1.ObjectReference{Kind: "Node", Name: node},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.Equal(t, node, admin(t, "-n", "acme-"+ns, "get", "pod", "bind-me", "-o", "jsonpath={.spec.nodeName}"))
	})

	t.Run("eviction", func(t *testing.T) {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod("evict-me", ""), metav1.CreateOptions{})
		require.NoError(t, err)
		err = cs.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "evict-me", Namespace: ns}})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			p, err := cs.CoreV1().Pods(ns).Get(ctx, "evict-me", metav1.GetOptions{})
			return err != nil || p.DeletionTimestamp != nil
		}, 30*time.Second, 200*time.Millisecond, "the evicted pod was not deleted")
	})

	t.Run("token", func(t *testing.T) {
		tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, tok.Status.Token)
		// The token is the upstream ServiceAccount's: it authenticates there
		// as acme-subres/default, a tenant identity the upstream confines.
		upstreamAsToken(t, tok.Status.Token)
	})

	t.Run("status", func(t *testing.T) {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod("status-me", "none"), metav1.CreateOptions{})
		require.NoError(t, err)
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "status-me", metav1.GetOptions{})
		require.NoError(t, err)
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "zoo.example/Checked", Status: corev1.ConditionTrue})
		_, err = cs.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		require.NoError(t, err)
		out := admin(t, "-n", "acme-"+ns, "get", "pod", "status-me", "-o", `jsonpath={.status.conditions[?(@.type=="zoo.example/Checked")].status}`)
		assert.Equal(t, "True", out)
	})
}

// upstreamAsToken checks with the token alone who the upstream says it is.
func upstreamAsToken(t *testing.T, token string) {
	t.Helper()
	base, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	base.CertData, base.KeyData, base.CertFile, base.KeyFile = nil, nil, "", ""
	base.BearerToken = token
	cs, err := kubernetes.NewForConfig(base)
	require.NoError(t, err)
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "system:serviceaccount:acme-subres:default", review.Status.UserInfo.Username)
}

// TestYAMLRequestBody: a request body in YAML is translated like JSON.
func TestYAMLRequestBody(t *testing.T) {
	acme := serve(t, "acme")
	c, base := rawClient(t, acme)
	yaml := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  format: yaml\n"
	code, body := do(t, c, "POST", base+"/api/v1/namespaces/default/configmaps",
		map[string]string{"Content-Type": "application/yaml", "Accept": "application/json"}, yaml)
	require.Equal(t, 201, code, body)
	assert.Contains(t, body, `"namespace":"default"`)
	assert.NotContains(t, body, "acme-default")
	assert.Equal(t, "yaml", admin(t, "-n", "acme-default", "get", "cm", "from-yaml", "-o", "jsonpath={.data.format}"))
	acme.k(t, "delete", "cm", "from-yaml")
}

// TestRequestLog: at -v=2 serve logs one line per request with tenant, verb,
// resource, code and latency.
func TestRequestLog(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "get", "configmaps", "-n", "default")
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(acme.stderr.String(), "\n") {
			if strings.Contains(line, `"request"`) && strings.Contains(line, `tenant="acme"`) &&
				strings.Contains(line, `verb="list"`) && strings.Contains(line, `resource="configmaps"`) &&
				strings.Contains(line, "code=200") && strings.Contains(line, "latency=") {
				return true
			}
		}
		return false
	}, 5*time.Second, 100*time.Millisecond, "no request line in serve's log:\n%s", tail(acme.stderr.String()))
}
