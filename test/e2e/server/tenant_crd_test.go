package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.srv.example.org
spec:
  group: srv.example.org
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// kubectlRun runs kubectl with kubeconfig and stdin, without failing the test.
func kubectlRun(t *testing.T, kubeconfig, stdin string, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t.Context(), []byte(stdin), framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}

// requireNoServerIdentity: what a tenant reads never names the server's
// ServiceAccount.
func requireNoServerIdentity(t *testing.T, text string) {
	t.Helper()
	require.NotContains(t, text, tenantapi.ServerNamespace)
	require.NotContains(t, text, tenantapi.ServerName)
}

// TestServerServesClusterScopedCRsOfTenantCRDs (issue 13): the objects of a
// tenant's cluster-scoped CRD, which the proxy serves with its own identity,
// work through the server (whose own identity is its ServiceAccount, with
// exactly the RBAC of install --server): creating the CRD writes, as the
// tenant, the ClusterRole that zoo-server aggregates; create, get, list,
// watch, status and delete then work through both replicas. A refusal of the
// server's identity never names it to the tenant, and the next request heals
// it; deleting the CRD deletes the ClusterRole.
func TestServerServesClusterScopedCRsOfTenantCRDs(t *testing.T) {
	lb, _ := twoReplicas(t)
	acme := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	beta := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))
	admin := framework.AdminClient(t)
	const roleName = "acme-zoo-crd-gadgets.srv.example.org"

	res := kubectlRun(t, acme, gadgetCRD, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	requireNoServerIdentity(t, res.Stderr)
	framework.KubectlAs(t, acme, "wait", "crd/gadgets.srv.example.org", "--for=condition=Established", "--timeout=60s")
	role, err := admin.RbacV1().ClusterRoles().Get(t.Context(), roleName, metav1.GetOptions{})
	require.NoError(t, err, "the CRD's create wrote the server's ClusterRole")
	assert.Equal(t, "true", role.Labels[tenantapi.ServerAggregateLabel])
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{"acme-srv.example.org"}, Resources: []string{"gadgets", "gadgets/status"},
		Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}}}, role.Rules)
	assert.Contains(t, framework.KubectlAs(t, acme, "get", "clusterroles", "-o", "name"), "clusterrole.rbac.authorization.k8s.io/zoo-crd-gadgets.srv.example.org",
		"acme sees the ClusterRole as its own")

	gadget := "apiVersion: srv.example.org/v1\nkind: Gadget\nmetadata: {name: one}\nspec: {size: 1}\n"
	require.Eventually(t, func() bool {
		res := kubectlRun(t, acme, gadget, "create", "-f", "-")
		requireNoServerIdentity(t, res.Stderr)
		return res.Err == nil
	}, 60*time.Second, 500*time.Millisecond, "creating a Gadget through the server")
	for range 4 { // both replicas
		assert.Equal(t, "one", framework.KubectlAs(t, acme, "get", "gadget", "one", "-o", "jsonpath={.metadata.name}"))
		assert.Equal(t, "gadget.srv.example.org/one", strings.TrimSpace(framework.KubectlAs(t, acme, "get", "gadgets", "-o", "name")))
	}
	framework.KubectlAs(t, acme, "patch", "gadget", "one", "--subresource=status", "--type=merge", `-p={"status":{"ok":true}}`)
	assert.Equal(t, "true", framework.KubectlAs(t, acme, "get", "gadget", "one", "-o", "jsonpath={.status.ok}"))
	upstream, err := dynamicAdmin(t).Resource(schema.GroupVersionResource{Group: "acme-srv.example.org", Version: "v1", Resource: "gadgets"}).
		Get(t.Context(), "one", metav1.GetOptions{})
	require.NoError(t, err, "the Gadget lands in acme's group upstream")
	assert.Equal(t, int64(1), upstream.Object["spec"].(map[string]any)["size"])

	t.Run("watch", func(t *testing.T) {
		cfg, err := clientcmd.BuildConfigFromFlags("", acme)
		require.NoError(t, err)
		dyn, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		gadgets := dyn.Resource(schema.GroupVersionResource{Group: "srv.example.org", Version: "v1", Resource: "gadgets"})
		list, err := gadgets.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		w, err := gadgets.Watch(t.Context(), metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		require.NoError(t, err)
		defer w.Stop()
		two := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "srv.example.org/v1", "kind": "Gadget", "metadata": map[string]any{"name": "two"}}}
		_, err = gadgets.Create(t.Context(), two, metav1.CreateOptions{})
		require.NoError(t, err)
		select {
		case ev := <-w.ResultChan():
			require.Equal(t, watch.Added, ev.Type, "%v", ev.Object)
			assert.Equal(t, "two", ev.Object.(*unstructured.Unstructured).GetName())
			assert.Equal(t, "srv.example.org/v1", ev.Object.(*unstructured.Unstructured).GetAPIVersion())
		case <-time.After(30 * time.Second):
			t.Fatal("no watch event")
		}
		require.NoError(t, gadgets.Delete(t.Context(), "two", metav1.DeleteOptions{}))
	})

	t.Run("beta sees none of it", func(t *testing.T) {
		res := kubectlRun(t, beta, "", "get", "gadgets.srv.example.org")
		require.Error(t, res.Err)
		assert.NotContains(t, res.Stdout, "one")
		assert.NotContains(t, kubectlRun(t, beta, "", "get", "clusterroles", "-o", "name").Stdout, "gadgets")
	})

	t.Run("a refusal of the server's identity does not name it, and heals", func(t *testing.T) {
		for _, args := range [][]string{{"get", "gadgets"}, {"patch", "gadget", "one", "--type=merge", `-p={"spec":{"size":2}}`}} {
			_, err := admin.RbacV1().ClusterRoles().Get(t.Context(), roleName, metav1.GetOptions{})
			if err == nil {
				require.NoError(t, admin.RbacV1().ClusterRoles().Delete(t.Context(), roleName, metav1.DeleteOptions{}))
			}
			require.Eventually(t, func() bool { return !framework.ServerMay(t, "list", "acme-srv.example.org", "gadgets") }, 60*time.Second, 200*time.Millisecond)
			res := kubectlRun(t, acme, "", args...)
			require.Error(t, res.Err, "%v: the server lost its right: %s", args, res.Stdout)
			requireNoServerIdentity(t, res.Stderr)
			assert.Contains(t, res.Stderr, "zoo-crd-gadgets.srv.example.org")
			assert.NotContains(t, res.Stderr, "acme-")
		}
		require.Eventually(t, func() bool { return kubectlRun(t, acme, "", "get", "gadget", "one").Err == nil }, 60*time.Second, 500*time.Millisecond,
			"the refusal wrote the ClusterRole again")
	})

	framework.KubectlAs(t, acme, "delete", "gadget", "one")
	framework.KubectlAs(t, acme, "delete", "crd", "gadgets.srv.example.org")
	require.Eventually(t, func() bool {
		_, err := admin.RbacV1().ClusterRoles().Get(context.Background(), roleName, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 60*time.Second, 500*time.Millisecond, "the garbage collector deletes the ClusterRole with its CRD")
}

// dynamicAdmin is a dynamic client acting as the cluster admin.
func dynamicAdmin(t *testing.T) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(framework.Cluster().Config)
	require.NoError(t, err)
	return d
}

// TestServerAggregateLabelThroughTheServer (issue 13): through the server,
// neither acme's admin nor a ServiceAccount with every right in acme's
// default namespace can use the label that gives ClusterRoles' rules to the
// server to widen the server's rights (test/e2e/tenant proves the same
// directly upstream); after all of it the server still cannot read secrets.
func TestServerAggregateLabelThroughTheServer(t *testing.T) {
	lb, _ := twoReplicas(t)
	acme := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	framework.KubectlAs(t, acme, "create", "serviceaccount", "lbl-all", "-n", "default")
	framework.KubectlAs(t, acme, "create", "rolebinding", "lbl-all", "-n", "default", "--clusterrole=cluster-admin", "--serviceaccount=default:lbl-all")
	sa := framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: serviceAccountToken(t, "acme-default", "lbl-all")})
	label := tenantapi.ServerAggregateLabel
	role := func(name, rules string) string {
		return "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: " + name + "\n  labels: {" + label + ": \"true\"}\nrules:\n" + rules
	}
	for _, tc := range []struct{ name, yaml string }{
		{"core secrets", role("lbl-secrets", "- {apiGroups: [\"\"], resources: [secrets], verbs: [get, list]}\n")},
		{"every group", role("lbl-star", "- {apiGroups: [\"*\"], resources: [\"*\"], verbs: [\"*\"]}\n")},
		{"non-resource URLs", role("lbl-urls", "- {nonResourceURLs: [/metrics], verbs: [get]}\n")},
		{"an aggregationRule", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: lbl-agg\n  labels: {" + label +
			": \"true\"}\naggregationRule:\n  clusterRoleSelectors: [{matchLabels: {app: x}}]\n"},
		{"no label, an aggregationRule selecting it", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: lbl-copy\n" +
			"aggregationRule:\n  clusterRoleSelectors: [{matchLabels: {" + label + ": \"true\"}}]\n"},
		{"the label on a ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lbl\n  namespace: default\n  labels: {" + label + ": \"true\"}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for who, kc := range map[string]string{"acme's admin": acme, "acme's ServiceAccount": sa} {
				res := kubectlRun(t, kc, tc.yaml, "create", "-f", "-")
				require.Error(t, res.Err, "%s: %s", who, res.Stdout)
				assert.Contains(t, res.Stderr, "forbidden", who)
				requireNoServerIdentity(t, res.Stderr)
			}
			res := kubectlRun(t, acme, tc.yaml, "create", "-f", "-")
			assert.Contains(t, res.Stderr, label, "acme's admin is refused for the label")
		})
	}
	t.Run("labeling an existing ClusterRole", func(t *testing.T) {
		for _, name := range []string{"view", "cluster-admin"} {
			for who, kc := range map[string]string{"acme's admin": acme, "acme's ServiceAccount": sa} {
				res := kubectlRun(t, kc, "", "label", "clusterrole", name, label+"=true")
				require.Error(t, res.Err, "%s labeled %s: %s", who, name, res.Stdout)
			}
		}
	})
	t.Run("beta's group is acme's own through the proxy", func(t *testing.T) {
		yaml := role("lbl-beta", "- {apiGroups: [beta-srv.example.org], resources: [\"*\"], verbs: [\"*\"]}\n")
		require.Error(t, kubectlRun(t, sa, yaml, "create", "-f", "-").Err, "the ServiceAccount has no cluster-wide rights")
		res := kubectlRun(t, acme, yaml, "create", "-f", "-")
		require.NoError(t, res.Err, res.Stderr)
		r, err := framework.AdminClient(t).RbacV1().ClusterRoles().Get(t.Context(), "acme-lbl-beta", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, []string{"acme-beta-srv.example.org"}, r.Rules[0].APIGroups, "a tenant names groups in its own view: all are its own upstream")
		framework.KubectlAs(t, acme, "delete", "clusterrole", "lbl-beta")
	})
	for _, name := range []string{"acme-lbl-secrets", "acme-lbl-star", "acme-lbl-beta", "acme-lbl-urls", "acme-lbl-agg", "acme-lbl-copy"} {
		_, err := framework.AdminClient(t).RbacV1().ClusterRoles().Get(t.Context(), name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s: %v", name, err)
	}
	for _, name := range []string{"acme-view", "acme-cluster-admin"} {
		r, err := framework.AdminClient(t).RbacV1().ClusterRoles().Get(t.Context(), name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.NotContains(t, r.Labels, label)
	}
	assert.False(t, framework.ServerMay(t, "get", "", "secrets"))
	assert.False(t, framework.ServerMay(t, "list", "beta-srv.example.org", "gadgets"))
	assert.False(t, framework.ServerMay(t, "get", "", "nodes"))
}
