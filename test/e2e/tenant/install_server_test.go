package tenant_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	zooinstall "github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// serverObjectVersions returns the version of every object install --server
// applies (its generation, or its resourceVersion for kinds without one), keyed by "kind namespace/name"; missing ones are absent.
func serverObjectVersions(t *testing.T) map[string]string {
	t.Helper()
	objs, err := zooinstall.ServerObjects(zooinstall.ServerOptions{Replicas: 1, Image: "unused", TLS: &zooinstall.ServerTLS{}})
	require.NoError(t, err)
	dyn := dynamicClient(t)
	mapper := restMapper(t)
	out := map[string]string{}
	for _, obj := range objs {
		u, err := upstream.ToUnstructured(obj)
		require.NoError(t, err)
		m, err := mapper.RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
		require.NoError(t, err)
		got, err := dyn.Resource(m.Resource).Namespace(u.GetNamespace()).Get(t.Context(), u.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		require.NoError(t, err)
		version := got.GetResourceVersion()
		if got.GetGeneration() > 0 { // the Deployment's status changes on its own
			version = "generation " + strconv.FormatInt(got.GetGeneration(), 10)
		}
		out[u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName()] = version
	}
	return out
}

// TestInstallServer covers install --server: dry runs, install, re-install
// keeping the certificate, the Deployment admitted under the restricted Pod
// Security profile, and --server --uninstall removing only the server.
func TestInstallServer(t *testing.T) {
	install(t)
	mustZoo(t, "install", "--server", "--uninstall")
	require.Empty(t, serverObjectVersions(t))
	serverObjs, err := zooinstall.ServerObjects(zooinstall.ServerOptions{Replicas: 1, Image: "unused"})
	require.NoError(t, err)

	// --dry-run=client prints everything and changes nothing.
	out := mustZoo(t, "install", "--server", "--dry-run=client", "-o", "yaml")
	docs := strings.Split(out, "\n---\n")
	require.Len(t, docs, len(zooinstall.InstallObjects(admissionrules.InstallConfig{}))+len(serverObjs))
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(docs[len(docs)-2]), &u.Object))
	assert.Equal(t, "Deployment", u.GetKind())

	// --dry-run=server checks what it can before the namespace exists and
	// says what it left out.
	res := zoo(t, "install", "--server", "--dry-run=server")
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stdout, "clusterrole.rbac.authorization.k8s.io/zoo-server serverside-applied (dry run)")
	assert.Contains(t, res.Stderr, "deployment.apps/zoo-server not checked by the dry run: namespace zoo-system does not exist yet")
	require.Empty(t, serverObjectVersions(t), "a dry run must not create anything")

	// Install; the output ends with how tenants connect.
	installedBefore := installed(t)
	out = mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	assert.Contains(t, out, "deployment.apps/zoo-server serverside-applied")
	assert.Contains(t, out, "https://zoo-server.zoo-system.svc")
	assert.Contains(t, out, "ConfigMap zoo-system/zoo-server-ca")
	first := serverObjectVersions(t)
	require.Len(t, first, len(serverObjs))
	assert.Equal(t, installedBefore, installed(t), "install --server leaves the install objects as they were")

	admin := framework.AdminClient(t)
	secret, err := admin.CoreV1().Secrets(tenantapi.ServerNamespace).Get(t.Context(), tenantapi.ServerTLSSecret, metav1.GetOptions{})
	require.NoError(t, err)
	_, err = zooinstall.ServerTLSFromSecret(secret, time.Now())
	require.NoError(t, err)
	cm, err := admin.CoreV1().ConfigMaps(tenantapi.ServerNamespace).Get(t.Context(), tenantapi.ServerCAConfigMap, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, string(secret.Data["ca.crt"]), cm.Data["ca.crt"])

	// The pod passes the restricted Pod Security profile the namespace
	// enforces, is scheduled and (on kwok's node) becomes available.
	waitAvailable(t, 1)

	// Now that the namespace exists, the server dry run checks everything.
	res = zoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e", "--dry-run=server")
	require.NoError(t, res.Err, res.Stderr)
	assert.Empty(t, res.Stderr)
	assert.Contains(t, res.Stdout, "deployment.apps/zoo-server serverside-applied (dry run)")

	// Again: nothing changes, the certificate and the zoo CA are kept.
	mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	assert.Equal(t, first, serverObjectVersions(t), "re-install must be a no-op")

	// A broken certificate is replaced.
	framework.Kubectl(t, "-n", tenantapi.ServerNamespace, "patch", "secret", tenantapi.ServerTLSSecret, "--type=merge",
		"-p", `{"data":{"ca.crt":"`+strings.Repeat("A", 8)+`"}}`)
	mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	renewed, err := admin.CoreV1().Secrets(tenantapi.ServerNamespace).Get(t.Context(), tenantapi.ServerTLSSecret, metav1.GetOptions{})
	require.NoError(t, err)
	_, err = zooinstall.ServerTLSFromSecret(renewed, time.Now())
	require.NoError(t, err)
	assert.NotEqual(t, secret.Data["tls.crt"], renewed.Data["tls.crt"])

	// --server --uninstall removes the server and nothing else.
	mustZoo(t, "tenant", "create", "srvkeep")
	out = mustZoo(t, "install", "--server", "--uninstall")
	assert.Contains(t, out, "the kubectl-zoo server uninstalled ("+strconv.Itoa(len(serverObjs))+" object(s) removed)")
	assert.Empty(t, serverObjectVersions(t))
	assert.Equal(t, installedBefore, installed(t))
	_, err = dynamicClient(t).Resource(tenantapi.TenantGVR).Get(t.Context(), "srvkeep", metav1.GetOptions{})
	require.NoError(t, err, "the tenant stays")

	// Plain --uninstall removes the server too.
	mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	mustZoo(t, "install", "--uninstall", "--force")
	assert.Empty(t, serverObjectVersions(t))
	assert.Empty(t, installed(t))
	install(t)
}

// waitAvailable waits until the server Deployment has n available replicas.
func waitAvailable(t *testing.T, n int32) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d, err := framework.AdminClient(t).AppsV1().Deployments(tenantapi.ServerNamespace).Get(t.Context(), tenantapi.ServerName, metav1.GetOptions{})
		require.NoError(t, err)
		if d.Status.AvailableReplicas == n {
			return
		}
		if time.Now().After(deadline) {
			require.FailNow(t, "the server Deployment did not become available", "status: %+v\nevents:\n%s", d.Status,
				framework.Kubectl(t, "-n", tenantapi.ServerNamespace, "get", "events"))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// restMapper maps kinds to resources by the cluster's discovery.
func restMapper(t *testing.T) meta.RESTMapper {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(framework.Cluster().Config)
	require.NoError(t, err)
	return restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
}

// serverConfig returns a REST config that authenticates with a token of the
// server's ServiceAccount, minted by TokenRequest.
func serverConfig(t *testing.T) *rest.Config {
	t.Helper()
	tok, err := framework.AdminClient(t).CoreV1().ServiceAccounts(tenantapi.ServerNamespace).CreateToken(t.Context(), tenantapi.ServerName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := rest.AnonymousClientConfig(framework.Cluster().Config)
	cfg.BearerToken = tok.Status.Token
	return cfg
}
