package proxy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// A GitOps controller (Argo CD, Flux) does, against the cluster it
// manages: discovery of every group, a RESTMapper from it, server-side
// apply of a set of manifests into several namespaces with its own field
// manager, pruning of what it applied before and no longer wants (found by
// an inventory label in all namespaces), and health checks on what it
// applied. gitopsSync does exactly that with client-go (issue 25, class 6).

// inventoryLabel marks the objects one GitOps application manages.
const inventoryLabel = "gitops.example.com/inventory"

// gitopsSync brings the objects of the application app to manifests (YAML
// documents) through cfg, and returns what it pruned.
func gitopsSync(t *testing.T, cfg *rest.Config, app string, manifests []string) []string {
	t.Helper()
	ctx := t.Context()
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	groups, resources, err := disc.ServerGroupsAndResources()
	require.NoError(t, err, "discovery of every group answers whole")
	require.NotEmpty(t, groups)
	require.NotEmpty(t, resources)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)

	want := map[string]bool{}
	kinds := map[schema.GroupVersionResource]bool{}
	for _, m := range manifests {
		obj := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(m), &obj.Object))
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[inventoryLabel], labels["app.kubernetes.io/managed-by"] = app, "gitops"
		obj.SetLabels(labels)
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err, "the RESTMapper knows %s", gvk)
		var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == "namespace" {
			ri = dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
			kinds[mapping.Resource] = true
		}
		_, err = ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "gitops-" + app, Force: true})
		require.NoError(t, err, "server-side apply of %s %s/%s", gvk.Kind, obj.GetNamespace(), obj.GetName())
		want[mapping.Resource.Resource+"/"+obj.GetNamespace()+"/"+obj.GetName()] = true
	}
	var pruned []string
	for gvr := range kinds {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: inventoryLabel + "=" + app})
		require.NoError(t, err, "the inventory of %s in all namespaces", gvr.Resource)
		for _, item := range list.Items {
			key := gvr.Resource + "/" + item.GetNamespace() + "/" + item.GetName()
			if want[key] {
				continue
			}
			require.NoError(t, dyn.Resource(gvr).Namespace(item.GetNamespace()).Delete(ctx, item.GetName(), metav1.DeleteOptions{}))
			pruned = append(pruned, key)
		}
	}
	slices.Sort(pruned)
	return pruned
}

// gitopsHealthy waits until the Deployment ns/name of app has every replica
// available, as a GitOps controller's health check reads it.
func gitopsHealthy(t *testing.T, cfg *rest.Config, ns, name, image string) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	require.Eventually(t, func() bool {
		d, err := dyn.Resource(deployments).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		want, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		available, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
		gen, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration")
		containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		got := ""
		if len(containers) > 0 {
			got, _, _ = unstructured.NestedString(containers[0].(map[string]any), "image")
		}
		return gen == d.GetGeneration() && available == want && got == image
	}, 90*time.Second, 500*time.Millisecond, "Deployment %s/%s healthy with %s", ns, name, image)
}

// gitopsApp is the application's manifests: a ConfigMap in each namespace
// (extra ones too), a Deployment and a Service in the first.
func gitopsApp(nss []string, image string, extra ...string) []string {
	var out []string
	for _, ns := range nss {
		out = append(out, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: %s}\ndata: {image: %q}\n", ns, image))
	}
	for _, name := range extra {
		out = append(out, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s}\n", name, nss[0]))
	}
	return append(out,
		fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: %s}\nspec:\n  replicas: 2\n"+
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"+
			"    spec: {containers: [{name: web, image: %q}]}\n", nss[0], image),
		fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: %s}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n", nss[0]))
}

// TestGitOpsShapedRun (issue 25, class 6): a GitOps-shaped controller
// syncs an application twice — the second time with a new image and one
// object fewer, which it prunes — through serve as the tenant's admin
// (namespaces applied too), and through the server with a tenant pod's
// ServiceAccount token that a tenant ClusterRoleBinding makes admin of
// every namespace of the tenant. Nothing of beta's appears or changes.
func TestGitOpsShapedRun(t *testing.T) {
	acme := serve(t, "acme")
	lb := servers(t) // before the state is read: the replicas set up zoo-system
	before := betaAndPlatform(t)
	restFor := func(kubeconfig string) *rest.Config {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		require.NoError(t, err)
		cfg.QPS, cfg.Burst = -1, 0
		return cfg
	}

	t.Run("serve, the tenant's admin", func(t *testing.T) {
		cfg := restFor(acme.Kubeconfig)
		nss := []string{"gitops-a", "gitops-b"}
		t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "gitops-a", "gitops-b", "--wait=false") })
		var manifests []string
		for _, ns := range nss { // a GitOps controller applies its namespaces too
			manifests = append(manifests, "apiVersion: v1\nkind: Namespace\nmetadata: {name: "+ns+"}\n")
		}
		assert.Empty(t, gitopsSync(t, cfg, "shop", append(manifests, gitopsApp(nss, "registry.example/web:1", "old")...)))
		gitopsHealthy(t, cfg, "gitops-a", "web", "registry.example/web:1")
		pruned := gitopsSync(t, cfg, "shop", append(manifests, gitopsApp(nss, "registry.example/web:2")...))
		assert.Equal(t, []string{"configmaps/gitops-a/old"}, pruned)
		gitopsHealthy(t, cfg, "gitops-a", "web", "registry.example/web:2")
		assert.Equal(t, "registry.example/web:2", acme.k(t, "-n", "gitops-b", "get", "cm", "settings", "-o", "jsonpath={.data.image}"))
	})

	t.Run("server, a pod's ServiceAccount token", func(t *testing.T) {
		nss := []string{"gitops-sa-a", "gitops-sa-b", "gitops-sa-c"}
		for _, ns := range nss {
			acme.k(t, "create", "namespace", ns)
		}
		t.Cleanup(func() { acme.run(t, "", append([]string{"delete", "namespace", "--wait=false"}, nss...)...) })
		acme.k(t, "-n", "gitops-sa-a", "create", "serviceaccount", "deployer")
		acme.k(t, "create", "clusterrolebinding", "gitops-deployer", "--clusterrole=admin", "--serviceaccount=gitops-sa-a:deployer")
		t.Cleanup(func() { acme.run(t, "", "delete", "clusterrolebinding", "gitops-deployer") })
		tok, err := clientFor(t, acme).CoreV1().ServiceAccounts("gitops-sa-a").CreateToken(t.Context(), "deployer",
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}, metav1.CreateOptions{})
		require.NoError(t, err)
		cfg := restFor(framework.ServerKubeconfigFor(t, lb.URL(), &clientcmdapi.AuthInfo{Token: tok.Status.Token}))
		// RBAC's cache takes a moment to see the tenant ClusterRoleBinding's grants.
		require.Eventually(t, func() bool {
			_, err := dynamic.NewForConfigOrDie(cfg).Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).
				Namespace("gitops-sa-c").List(context.Background(), metav1.ListOptions{})
			return err == nil
		}, 30*time.Second, 500*time.Millisecond)
		assert.Empty(t, gitopsSync(t, cfg, "api", gitopsApp(nss, "registry.example/api:1", "old", "older")))
		gitopsHealthy(t, cfg, "gitops-sa-a", "web", "registry.example/api:1")
		pruned := gitopsSync(t, cfg, "api", gitopsApp(nss, "registry.example/api:2", "older"))
		assert.Equal(t, []string{"configmaps/gitops-sa-a/old"}, pruned)
		gitopsHealthy(t, cfg, "gitops-sa-a", "web", "registry.example/api:2")
		assert.Equal(t, "registry.example/api:2", acme.k(t, "-n", "gitops-sa-c", "get", "cm", "settings", "-o", "jsonpath={.data.image}"))
	})
	assert.Equal(t, before, betaAndPlatform(t), "nothing of beta or the platform changed")
}
