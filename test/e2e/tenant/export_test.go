package tenant_test

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/transfer"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// exportTenant is a tenant's objects in its own names: namespaces,
// Deployments (one with an HPA), a StatefulSet, CronJobs, a CRD and one of
// its objects, RBAC, a Secret, and classes of its own (a StorageClass and a
// PriorityClass, of the shared kinds).
//
//go:embed testdata/export-tenant.yaml
var exportTenant []byte

// exportedObjects are the objects an export of exportTenant holds, in apply
// order: what the cluster made from them (ReplicaSets, pods, endpoints,
// default accounts) and what kubectl-zoo made for the tenant are left out.
var exportedObjects = []string{
	"CustomResourceDefinition /widgets.shop.example.com",
	"Namespace /batch", "Namespace /shop",
	"ClusterRole /widget-reader", "ClusterRoleBinding /widget-readers", "StorageClass /fast", "PriorityClass /batch-low",
	"Role shop/config-editor", "RoleBinding shop/config-editors",
	"ConfigMap shop/settings", "Secret shop/credentials", "ServiceAccount shop/builder",
	"Service shop/db", "Service shop/web",
	"Deployment batch/worker", "Deployment shop/web", "StatefulSet shop/db",
	"CronJob batch/hourly", "CronJob batch/nightly", "HorizontalPodAutoscaler shop/web",
	"Widget shop/blue",
}

// TestTenantExportImport exports a tenant, imports the export into a fresh
// tenant and compares the two views object by object, then applies the
// same file with stock kubectl to a second, plain control plane and
// compares there.
func TestTenantExportImport(t *testing.T) {
	install(t)
	createTenant(t, "expsrc")
	createTenant(t, "expdst")
	dir := t.TempDir()
	fixture := filepath.Join(dir, "tenant.yaml")
	require.NoError(t, os.WriteFile(fixture, exportTenant, 0o600))
	mustZoo(t, "tenant", "import", "expsrc", "-f", fixture)
	waitControllerObjects(t, "expsrc-shop")

	exported := filepath.Join(dir, "export.yaml")
	res := zoo(t, "tenant", "export", "expsrc", "--include-secrets", "-f", exported)
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stderr, "Warning: the export holds the Secrets of tenant expsrc")
	objs := readExport(t, exported)
	require.Equal(t, exportedObjects, objectKeys(objs))
	withoutSecrets := zoo(t, "tenant", "export", "expsrc", "-o", "json")
	require.NoError(t, withoutSecrets.Err, withoutSecrets.Stderr)
	assert.NotContains(t, withoutSecrets.Stdout, `"kind": "Secret"`)

	mustZoo(t, "tenant", "import", "expdst", "-f", exported)
	copied := filepath.Join(dir, "copy.yaml")
	mustZoo(t, "tenant", "export", "expdst", "--include-secrets", "-f", copied)
	requireSameObjects(t, objs, readExport(t, copied))
	cm, err := framework.AdminClient(t).CoreV1().ConfigMaps("expdst-shop").Get(t.Context(), "settings", metav1.GetOptions{})
	require.NoError(t, err, "the import is the copy's, upstream in its prefix")
	assert.Equal(t, map[string]string{"color": "blue"}, cm.Data)

	plain := startPlainCluster(t)
	applyWithStockKubectl(t, plain.Kubeconfig, exported, firstApply{})
	requireSameObjects(t, objs, readBack(t, plain.Config, objs))

	// Stock kubectl apply through a tenant's view (the server's) imports it
	// too. Its first run is without client-side validation: through the
	// view, kubectl's validation of a kind not served yet fails to decode
	// the view's OpenAPI v2 instead of naming the kind. And it may be
	// refused in a namespace it has just created, until the API server's
	// RBAC authorizer follows the namespace's new RoleBindings.
	createTenant(t, "expkub")
	replica := framework.StartReplica(t)
	view := framework.ServerKubeconfigFor(t, "https://"+replica.Addr, framework.ClusterCert(t, "zoo:expkub:admin", "zoo:tenant:expkub"))
	applyWithStockKubectl(t, view, exported, firstApply{mayFail: []string{"is forbidden: User \"admin\" cannot create resource"}})
	viaKubectl := filepath.Join(dir, "kubectl.yaml")
	mustZoo(t, "tenant", "export", "expkub", "--include-secrets", "-f", viaKubectl)
	requireSameObjects(t, objs, readExport(t, viaKubectl))
}

// waitControllerObjects waits until the controllers made the ReplicaSets of
// the Deployments in ns, which the export must leave out.
func waitControllerObjects(t *testing.T, ns string) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		rs, err := framework.AdminClient(t).AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(c, err)
		assert.NotEmpty(c, rs.Items)
	}, time.Minute, 200*time.Millisecond)
}

// readExport reads an export file.
func readExport(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	objs, err := transfer.ReadManifests(f)
	require.NoError(t, err)
	return objs
}

// objectKeys names objects "Kind namespace/name", in their order.
func objectKeys(objs []*unstructured.Unstructured) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	}
	return out
}

// requireSameObjects compares two sets of objects one by one.
func requireSameObjects(t *testing.T, want, got []*unstructured.Unstructured) {
	t.Helper()
	require.Equal(t, objectKeys(want), objectKeys(got))
	for i := range want {
		assert.Equal(t, want[i].Object, got[i].Object, objectKeys(want)[i])
	}
}

// startPlainCluster starts a second control plane, with no kubectl-zoo, as
// the framework starts the first; it stops when the test ends.
func startPlainCluster(t *testing.T) *kubecluster.Cluster {
	t.Helper()
	c, err := kubecluster.Start(t.Context(), kubecluster.Options{BinDir: framework.Cluster().BinDir, Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	return c
}

// firstApply is how the first `kubectl apply` of applyWithStockKubectl
// runs: with extra args, and what else its errors may say.
type firstApply struct {
	args, mayFail []string
}

// applyWithStockKubectl applies an export with `kubectl apply -f`: custom
// resources cannot be mapped before their CRDs are established, so the
// first apply may fail on those alone (or as first.mayFail says), and the
// apply after the wait is clean.
func applyWithStockKubectl(t *testing.T, kubeconfig, path string, first firstApply) {
	t.Helper()
	res := kubectlWith(t, kubeconfig, "", append([]string{"apply", "-f", path}, first.args...)...)
	if res.Err != nil {
		for _, line := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
			expected := line == "ensure CRDs are installed first" || strings.Contains(line, `no matches for kind "Widget"`)
			for _, s := range first.mayFail {
				expected = expected || strings.Contains(line, s)
			}
			require.True(t, expected, "unexpected error line %q; stderr: %s", line, res.Stderr)
		}
	}
	wait := kubectlWith(t, kubeconfig, "", "wait", "--for", "condition=established", "--timeout", "60s", "crd", "--all")
	require.NoError(t, wait.Err, wait.Stderr)
	again := kubectlWith(t, kubeconfig, "", "apply", "-f", path)
	require.NoError(t, again.Err, again.Stderr)
	require.Empty(t, again.Stderr)
}

// readBack reads each of objs from the cluster of cfg, cleaned as an export
// cleans them.
func readBack(t *testing.T, cfg *rest.Config, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err)
		got, err := dyn.Resource(m.Resource).Namespace(o.GetNamespace()).Get(t.Context(), o.GetName(), metav1.GetOptions{})
		require.NoError(t, err, objectKeys(objs)[i])
		transfer.CleanForExport(got)
		out[i] = got
	}
	return out
}
