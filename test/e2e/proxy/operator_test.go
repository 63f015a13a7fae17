package proxy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// An operator a tenant runs (issue 25): controller-runtime's manager with a
// cache over every namespace, leader election on a Lease, a reconciler that
// writes its custom resources' status and records Events.

// operatorGVK is the operator's kind, of a CRD acme installs in its view.
var operatorGVK = schema.GroupVersionKind{Group: "ops.example.com", Version: "v1", Kind: "Widget"}

const operatorCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.ops.example.com}
spec:
  group: ops.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, properties: {observedSize: {type: integer}}}
`

// operatorReconciler copies a Widget's spec.size to status.observedSize and
// records an Event each time it does.
type operatorReconciler struct {
	client.Client
	events interface {
		Event(object runtime.Object, eventtype, reason, message string)
	}
}

func (r *operatorReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(operatorGVK)
	if err := r.Get(ctx, req.NamespacedName, w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
	seen, found, _ := unstructured.NestedInt64(w.Object, "status", "observedSize")
	if found && seen == size {
		return ctrl.Result{}, nil
	}
	if err := unstructured.SetNestedField(w.Object, size, "status", "observedSize"); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Status().Update(ctx, w); err != nil {
		return ctrl.Result{}, err
	}
	r.events.Event(w, "Normal", "Observed", fmt.Sprintf("size %d", size))
	return ctrl.Result{}, nil
}

// runOperator starts the manager on cfg, with leader election in ns, and
// returns once it is elected with its caches synced; it stops with the test.
func runOperator(t *testing.T, cfg *rest.Config, ns string) {
	t.Helper()
	ctrl.SetLogger(klog.NewKlogr())
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		LeaderElection:          true,
		LeaderElectionID:        "widget-operator",
		LeaderElectionNamespace: ns,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
	})
	require.NoError(t, err)
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(operatorGVK)
	r := &operatorReconciler{Client: mgr.GetClient(), events: mgr.GetEventRecorderFor("widget-operator")}
	// One controller name per manager: controller-runtime registers its
	// metrics by name, once per process.
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).For(w).Named("widgets-"+ns).Complete(r))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err, "the manager stops cleanly")
		case <-time.After(30 * time.Second):
			t.Error("the manager did not stop")
		}
	})
	select {
	case <-mgr.Elected():
	case err := <-done:
		t.Fatalf("the manager stopped before it was elected: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the manager was not elected leader")
	}
	syncCtx, syncCancel := context.WithTimeout(ctx, 60*time.Second)
	defer syncCancel()
	require.True(t, mgr.GetCache().WaitForCacheSync(syncCtx), "the cluster-wide cache syncs")
}

// TestControllerRuntimeOperator (issue 25): a controller-runtime operator
// acme runs — a cache over all its namespaces, leader election, status
// writes, Events — works through serve as acme's admin and through the
// server with the token of a ServiceAccount that a tenant ClusterRole and
// ClusterRoleBinding give exactly the operator's rights in every namespace.
func TestControllerRuntimeOperator(t *testing.T) {
	acme := serve(t, "acme")
	lb := servers(t)
	acme.apply(t, operatorCRD)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "widgets.ops.example.com", "--wait=false") })
	acme.k(t, "wait", "--for=condition=Established", "crd/widgets.ops.example.com", "--timeout=60s")
	restFor := func(kubeconfig string) *rest.Config {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		require.NoError(t, err)
		return cfg
	}
	widget := func(ns, name string, size int) string {
		return fmt.Sprintf("apiVersion: ops.example.com/v1\nkind: Widget\nmetadata: {name: %s, namespace: %s}\nspec: {size: %d}\n", name, ns, size)
	}
	observed := func(t *testing.T, ns, name string, size int) {
		t.Helper()
		require.Eventually(t, func() bool {
			res := acme.run(t, "", "-n", ns, "get", "widget", name, "-o", "jsonpath={.status.observedSize}")
			return res.Err == nil && strings.TrimSpace(res.Stdout) == fmt.Sprint(size)
		}, 60*time.Second, 500*time.Millisecond, "the operator observed %s/%s at size %d", ns, name, size)
	}
	for _, path := range []struct {
		name string
		cfg  func(t *testing.T, nss []string) *rest.Config
	}{
		{"serve, the tenant's admin", func(t *testing.T, nss []string) *rest.Config { return restFor(acme.Kubeconfig) }},
		{"server, a pod's ServiceAccount token", func(t *testing.T, nss []string) *rest.Config {
			acme.k(t, "-n", nss[0], "create", "serviceaccount", "operator")
			acme.k(t, "create", "clusterrole", "widget-operator",
				"--verb=get,list,watch,update,patch", "--resource=widgets.ops.example.com,widgets.ops.example.com/status")
			acme.k(t, "create", "clusterrole", "widget-operator-events", "--verb=create,patch,update,get,list,watch", "--resource=events,leases.coordination.k8s.io")
			for _, role := range []string{"widget-operator", "widget-operator-events"} {
				acme.k(t, "create", "clusterrolebinding", role, "--clusterrole="+role, "--serviceaccount="+nss[0]+":operator")
				t.Cleanup(func() { acme.run(t, "", "delete", "clusterrolebinding,clusterrole", role) })
			}
			tok, err := clientFor(t, acme).CoreV1().ServiceAccounts(nss[0]).CreateToken(t.Context(), "operator",
				&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}, metav1.CreateOptions{})
			require.NoError(t, err)
			sa := framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: tok.Status.Token})
			require.Eventually(t, func() bool { // RBAC's cache takes a moment to see the grants
				res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", sa, "-n", nss[1], "get", "widgets")
				return res.Err == nil
			}, 30*time.Second, 500*time.Millisecond)
			return restFor(sa)
		}},
	} {
		t.Run(path.name, func(t *testing.T) {
			prefix := "op-" + strings.Split(path.name, ",")[0]
			nss := []string{prefix + "-a", prefix + "-b"}
			for _, ns := range nss {
				acme.k(t, "create", "namespace", ns)
			}
			t.Cleanup(func() { acme.run(t, "", append([]string{"delete", "namespace", "--wait=false"}, nss...)...) })
			acme.apply(t, widget(nss[1], "early", 2)) // before the operator: its initial list
			runOperator(t, path.cfg(t, nss), nss[0])
			observed(t, nss[1], "early", 2)
			acme.apply(t, widget(nss[0], "late", 5)) // after: its watch over every namespace
			observed(t, nss[0], "late", 5)
			acme.k(t, "-n", nss[1], "patch", "widget", "early", "--type=merge", `-p={"spec":{"size":3}}`)
			observed(t, nss[1], "early", 3)
			assert.NotEmpty(t, acme.k(t, "-n", nss[0], "get", "lease", "widget-operator", "-o", "jsonpath={.spec.holderIdentity}"), "leader election holds its Lease")
			require.Eventually(t, func() bool {
				out := acme.run(t, "", "get", "events", "-A", "--field-selector", "reason=Observed", "-o", "jsonpath={.items[*].metadata.namespace}").Stdout
				return strings.Contains(out, nss[0]) && strings.Contains(out, nss[1])
			}, 30*time.Second, 500*time.Millisecond, "the operator's Events, in both namespaces")
		})
	}
}
