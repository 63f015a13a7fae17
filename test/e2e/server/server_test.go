package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// twoReplicas starts two replicas behind a round-robin balancer: a client's
// requests reach both.
func twoReplicas(t *testing.T) (*framework.Balancer, []*framework.Replica) {
	t.Helper()
	setup(t)
	r1, r2 := framework.StartReplica(t), framework.StartReplica(t)
	return framework.NewBalancer(t, false, r1.Addr, r2.Addr), []*framework.Replica{r1, r2}
}

// clientFor is a clientset for a kubeconfig.
func clientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return client
}

// TestServerServesEachTenantByItsCertificate runs two tenants' kubectl
// through two replicas: each sees its own cluster, and its writes land in its
// own upstream namespaces.
func TestServerServesEachTenantByItsCertificate(t *testing.T) {
	lb, _ := twoReplicas(t)
	acme := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	beta := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))

	framework.KubectlAs(t, acme, "create", "configmap", "srv-acme", "-n", "default", "--from-literal=v=acme")
	framework.KubectlAs(t, beta, "create", "configmap", "srv-beta", "-n", "default", "--from-literal=v=beta")
	for range 4 { // round robin: both replicas answer
		out := framework.KubectlAs(t, acme, "get", "configmaps", "-n", "default", "-o", "name")
		assert.Contains(t, out, "configmap/srv-acme")
		assert.NotContains(t, out, "srv-beta")
		out = framework.KubectlAs(t, beta, "get", "configmaps", "-n", "default", "-o", "name")
		assert.Contains(t, out, "configmap/srv-beta")
		assert.NotContains(t, out, "srv-acme")
	}
	admin := framework.AdminClient(t)
	cm, err := admin.CoreV1().ConfigMaps("acme-default").Get(t.Context(), "srv-acme", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "acme", cm.Data["v"])
	_, err = admin.CoreV1().ConfigMaps("beta-default").Get(t.Context(), "srv-beta", metav1.GetOptions{})
	require.NoError(t, err)

	who := framework.KubectlAs(t, acme, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	assert.Equal(t, "admin", who)
	namespaces := framework.KubectlAs(t, acme, "get", "namespaces", "-o", "name")
	assert.Contains(t, namespaces, "namespace/default")
	assert.NotContains(t, namespaces, "beta")
	assert.NotContains(t, namespaces, "acme-")
	assert.Equal(t, "yes\n", framework.KubectlAs(t, acme, "auth", "can-i", "create", "configmaps", "-n", "default"))

	// acme naming beta's namespace reaches only its own namespace of that name.
	res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", acme, "get", "configmap", "srv-beta", "-n", "beta-default")
	require.Error(t, res.Err)
	assert.NotContains(t, res.Stdout, "srv-beta")
}

// TestServerRefusesCredentialsOfNoTenant: every credential that is not a
// tenant identity of an existing tenant, or whose parts name different
// tenants, is a 401 — tried on both replicas.
func TestServerRefusesCredentialsOfNoTenant(t *testing.T) {
	lb, replicas := twoReplicas(t)
	cluster := framework.Cluster().Config
	cases := []struct {
		name string
		auth *clientcmdapi.AuthInfo
	}{
		{"certificate whose CN and O name different tenants", framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:beta")},
		{"certificate in both tenants' groups", framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme", "zoo:tenant:beta")},
		{"certificate claiming zoo:admins", framework.ClusterCert(t, "zoo:acme:mallory", "zoo:tenant:acme", "zoo:admins")},
		{"certificate claiming a cluster group", framework.ClusterCert(t, "zoo:acme:mallory", "zoo:tenant:acme", "platform-viewers")},
		{"certificate of a tenant that does not exist", framework.ClusterCert(t, "zoo:ghost:admin", "zoo:tenant:ghost")},
		{"the cluster admin's certificate", &clientcmdapi.AuthInfo{ClientCertificateData: cluster.CertData, ClientKeyData: cluster.KeyData}},
		{"certificate no trusted CA signed", framework.SelfSignedCert(t, "zoo:acme:admin", "zoo:tenant:acme")},
		{"ServiceAccount token outside tenant namespaces", &clientcmdapi.AuthInfo{Token: serviceAccountToken(t, "default", "zoo-e2e-outsider")}},
		{"token no one issued", &clientcmdapi.AuthInfo{Token: "eyJhbGciOiJSUzI1NiJ9.e30.bm90LWEtc2lnbmF0dXJl"}},
		{"no credential", &clientcmdapi.AuthInfo{}},
	}
	urls := []string{lb.URL(), "https://" + replicas[0].Addr, "https://" + replicas[1].Addr}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, url := range urls {
				client := clientFor(t, framework.ServerKubeconfigFor(t, url, c.auth))
				_, err := client.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
				assert.True(t, apierrors.IsUnauthorized(err), "%s: got %v", url, err)
				_, err = client.CoreV1().ConfigMaps("default").Create(context.Background(), configMap("refused"), metav1.CreateOptions{})
				assert.True(t, apierrors.IsUnauthorized(err), "%s: got %v", url, err)
			}
		})
	}
	for _, ns := range []string{"acme-default", "beta-default", "ghost-default", "default"} {
		_, err := framework.AdminClient(t).CoreV1().ConfigMaps(ns).Get(t.Context(), "refused", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "a refused credential wrote %s/refused: %v", ns, err)
	}
}

// TestServerServesTenantServiceAccounts: a token of a ServiceAccount in a
// tenant namespace (what the kubelet mounts in the tenant's pods) acts as
// that ServiceAccount in the tenant's view, with the rights the tenant gave
// it, and never as another tenant.
func TestServerServesTenantServiceAccounts(t *testing.T) {
	lb, _ := twoReplicas(t)
	acme := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	framework.KubectlAs(t, acme, "create", "serviceaccount", "builder", "-n", "default")
	framework.KubectlAs(t, acme, "create", "rolebinding", "builder-edit", "-n", "default", "--clusterrole=edit", "--serviceaccount=default:builder")
	waitAuthorized(t, "system:serviceaccount:acme-default:builder", "list", "configmaps", "acme-default")
	framework.KubectlAs(t, acme, "create", "configmap", "sa-visible", "-n", "default")
	beta := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))
	framework.KubectlAs(t, beta, "create", "configmap", "sa-hidden", "-n", "default")

	builder := framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: serviceAccountToken(t, "acme-default", "builder")})
	assert.Equal(t, "system:serviceaccount:default:builder",
		framework.KubectlAs(t, builder, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"))
	out := framework.KubectlAs(t, builder, "get", "configmaps", "-n", "default", "-o", "name")
	assert.Contains(t, out, "configmap/sa-visible")
	assert.NotContains(t, out, "sa-hidden")
	framework.KubectlAs(t, builder, "create", "configmap", "made-by-builder", "-n", "default")
	_, err := framework.AdminClient(t).CoreV1().ConfigMaps("acme-default").Get(t.Context(), "made-by-builder", metav1.GetOptions{})
	require.NoError(t, err, "the ServiceAccount's write lands in its tenant's namespace")

	// Its rights are the ones acme gave it: no more.
	assert.Equal(t, "no\n", runOut(t, builder, "auth", "can-i", "create", "rolebindings", "-n", "default"))
	res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", builder, "get", "secrets", "-n", "kube-system")
	require.Error(t, res.Err)
	res = framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", builder, "get", "configmap", "sa-hidden", "-n", "beta-default")
	require.Error(t, res.Err)
	assert.NotContains(t, res.Stdout, "sa-hidden")
	for _, ns := range []string{"beta-default", "acme-beta-default"} {
		_, err := framework.AdminClient(t).CoreV1().ConfigMaps(ns).Get(t.Context(), "made-by-builder", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s: %v", ns, err)
	}
}

// runOut runs kubectl with kubeconfig and returns its standard output
// whatever the exit (can-i exits 1 for "no").
func runOut(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	res := framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	if res.Err != nil && !strings.Contains(res.Stdout, "no") {
		t.Fatalf("kubectl %v: %v\n%s", args, res.Err, res.Stderr)
	}
	return res.Stdout
}

// TestServerIgnoresImpersonationAsked: the caller's own Impersonate-*
// headers never reach the upstream — acme asking to act as beta's admin,
// as system:masters or as the cluster admin still acts as acme's admin.
func TestServerIgnoresImpersonationAsked(t *testing.T) {
	lb, _ := twoReplicas(t)
	acme := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	asks := [][]string{
		{"--as", "zoo:beta:admin", "--as-group", "zoo:tenant:beta"},
		{"--as", "kubernetes-admin", "--as-group", "system:masters"},
		{"--as", "system:serviceaccount:beta-default:default"},
	}
	admin := framework.AdminClient(t)
	for i, ask := range asks {
		name := "impersonation-" + strconv.Itoa(i)
		res := framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", acme, "create", "configmap", name, "-n", "default"}, ask...)...)
		require.NoError(t, res.Err, "%v: %s", ask, res.Stderr)
		_, err := admin.CoreV1().ConfigMaps("acme-default").Get(t.Context(), name, metav1.GetOptions{})
		assert.NoError(t, err, "%v: acme's write lands in acme's namespace", ask)
		_, err = admin.CoreV1().ConfigMaps("beta-default").Get(t.Context(), name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%v: nothing reaches beta: %v", ask, err)
		who := framework.KubectlAs(t, acme, append([]string{"auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"}, ask...)...)
		assert.Equal(t, "admin", who, "%v", ask)
		assert.Equal(t, "no\n", runOut(t, acme, append([]string{"auth", "can-i", "get", "nodes", "--subresource=proxy", "-A"}, ask...)...), "%v", ask)
		res = framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", acme, "get", "--raw", "/api/v1/nodes/" + framework.Cluster().NodeName + "/proxy/healthz"}, ask...)...)
		assert.Error(t, res.Err, "%v: the node proxy answered acme: %s", ask, res.Stdout)
	}
	// kubectl refuses a group without a user; a raw client sends it.
	auth := framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme")
	cfg, err := clientcmd.BuildConfigFromFlags("", framework.ServerKubeconfigFor(t, lb.URL(), auth))
	require.NoError(t, err)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("Impersonate-Group", "system:masters")
			r.Header.Set("Impersonate-Extra-Scopes", "cluster-admin")
			return rt.RoundTrip(r)
		})
	}
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = client.CoreV1().ConfigMaps("default").Create(t.Context(), configMap("impersonation-group"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.CoreV1().ConfigMaps("acme-default").Get(t.Context(), "impersonation-group", metav1.GetOptions{})
	assert.NoError(t, err)
	_, err = client.CoreV1().Secrets("kube-system").List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err, "acme's own kube-system")
	_, err = client.CoreV1().Nodes().Create(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "impersonation-node"}}, metav1.CreateOptions{})
	assert.True(t, apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err), "a node is the cluster's: %v", err)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
