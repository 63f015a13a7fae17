package proxy_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// clientFor returns a client-go clientset that talks to the proxy.
func clientFor(t *testing.T, s *served) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	cfg.QPS, cfg.Burst = -1, 0
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

// TestPagingGivesFullPages walks lists page by page with limit/continue:
// across all of the tenant's namespaces (the proxy fans out) and over the
// tenant's namespaces themselves (an upstream label selector). Every page
// but the last is full, nothing repeats, nothing is missing, and the other
// tenant's twins never show up.
func TestPagingGivesFullPages(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	const perNamespace, limit = 7, 5
	namespaces := []string{"page-a", "page-b", "page-c"}
	for _, s := range []*served{acme, beta} {
		cs := clientFor(t, s)
		for _, ns := range namespaces {
			_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}) })
			for i := range perNamespace {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"paged": "yes"}},
					Data:       map[string]string{"owner": s.Tenant},
				}, metav1.CreateOptions{})
				require.NoError(t, err)
			}
		}
	}

	cs := clientFor(t, acme)
	t.Run("configmaps in all namespaces", func(t *testing.T) {
		seen := map[string]bool{}
		pages := 0
		opts := metav1.ListOptions{Limit: limit, LabelSelector: "paged=yes"}
		for {
			list, err := cs.CoreV1().ConfigMaps("").List(t.Context(), opts)
			require.NoError(t, err)
			pages++
			for _, cm := range list.Items {
				key := cm.Namespace + "/" + cm.Name
				assert.False(t, seen[key], "%s came twice", key)
				seen[key] = true
				assert.Equal(t, "acme", cm.Data["owner"], key)
			}
			if list.Continue == "" {
				break
			}
			assert.Len(t, list.Items, limit, "page %d is not full although more follow", pages)
			opts.Continue = list.Continue
		}
		assert.Len(t, seen, perNamespace*len(namespaces))
		assert.Equal(t, (perNamespace*len(namespaces)+limit-1)/limit, pages)
	})

	t.Run("namespaces", func(t *testing.T) {
		var names []string
		opts := metav1.ListOptions{Limit: 2}
		for {
			list, err := cs.CoreV1().Namespaces().List(t.Context(), opts)
			require.NoError(t, err)
			for _, ns := range list.Items {
				names = append(names, ns.Name)
			}
			if list.Continue == "" {
				break
			}
			assert.Len(t, list.Items, 2, "a page of namespaces is not full although more follow")
			opts.Continue = list.Continue
		}
		// default, kube-node-lease, kube-public, kube-system and the three
		// made here (other tests' namespaces may come and go).
		for _, want := range append([]string{"default", "kube-system", "kube-public", "kube-node-lease"}, namespaces...) {
			assert.Contains(t, names, want)
		}
		for _, n := range names {
			assert.NotContains(t, n, "acme-", "an upstream name leaked")
			assert.NotContains(t, n, "beta", "the other tenant's namespace leaked")
		}
	})

	t.Run("storage classes: the cluster's and the tenant's, never the other tenant's", func(t *testing.T) {
		sc := func(name string) *storagev1.StorageClass {
			return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "example.com/none"}
		}
		upstream := framework.AdminClient(t)
		for i := range 3 {
			name := fmt.Sprintf("cluster-sc-%d", i)
			_, err := upstream.StorageV1().StorageClasses().Create(t.Context(), sc(name), metav1.CreateOptions{})
			require.NoError(t, err)
			t.Cleanup(func() { _ = upstream.StorageV1().StorageClasses().Delete(t.Context(), name, metav1.DeleteOptions{}) })
		}
		for tenant, n := range map[*served]int{acme: 2, beta: 5} {
			tcs := clientFor(t, tenant)
			for i := range n {
				name := fmt.Sprintf("own-sc-%d", i)
				_, err := tcs.StorageV1().StorageClasses().Create(t.Context(), sc(name), metav1.CreateOptions{})
				require.NoError(t, err)
				t.Cleanup(func() { _ = tcs.StorageV1().StorageClasses().Delete(t.Context(), name, metav1.DeleteOptions{}) })
			}
		}
		var names []string
		opts := metav1.ListOptions{Limit: 2}
		for {
			list, err := cs.StorageV1().StorageClasses().List(t.Context(), opts)
			require.NoError(t, err)
			for _, c := range list.Items {
				names = append(names, c.Name)
			}
			if list.Continue == "" {
				break
			}
			assert.Len(t, list.Items, 2, "a page of storage classes is not full although more follow")
			opts.Continue = list.Continue
		}
		assert.ElementsMatch(t, []string{"cluster-sc-0", "cluster-sc-1", "cluster-sc-2", "own-sc-0", "own-sc-1"}, names)
	})

	t.Run("a continue token cannot be pointed at the other tenant", func(t *testing.T) {
		list, err := cs.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{Limit: limit})
		require.NoError(t, err)
		require.NotEmpty(t, list.Continue)
		_, err = clientFor(t, beta).CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{Limit: limit, Continue: list.Continue})
		require.Error(t, err, "beta must not resume acme's list")
	})
}
