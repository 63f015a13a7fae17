package proxy_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestSharedListsThroughServe: a list of a shared kind through serve is two
// upstream lists (the cluster's StorageClasses, the tenant's) joined into one:
// kubectl pages it with --chunk-size, as a Table or as names, client-go pages
// it and watches from its resourceVersion, and no selector, field selector or
// continue token of the tenant's shows another tenant's class.
func TestSharedListsThroughServe(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	upstream := framework.AdminClient(t)
	sc := func(name string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"shl": "yes"}}, Provisioner: "example.com/none"}
	}
	create := func(cs kubernetes.Interface, name string) {
		t.Helper()
		_, err := cs.StorageV1().StorageClasses().Create(t.Context(), sc(name), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	var cleanup []func()
	defer func() {
		for _, f := range cleanup {
			f()
		}
	}()
	del := func(cs kubernetes.Interface, name string) func() {
		return func() {
			_ = cs.StorageV1().StorageClasses().Delete(t.Context(), name, metav1.DeleteOptions{})
		}
	}
	acmeCS, betaCS := clientFor(t, acme), clientFor(t, beta)
	for i := range 3 {
		name := fmt.Sprintf("shl-cluster-%d", i)
		create(upstream, name)
		cleanup = append(cleanup, del(upstream, name))
	}
	for i := range 2 {
		name := fmt.Sprintf("shl-own-%d", i)
		create(acmeCS, name)
		cleanup = append(cleanup, del(acmeCS, name))
	}
	for i := range 4 {
		name := fmt.Sprintf("shl-own-%d", i) // acme's twins and two acme does not have
		create(betaCS, name)
		cleanup = append(cleanup, del(betaCS, name))
	}
	want := []string{"shl-cluster-0", "shl-cluster-1", "shl-cluster-2", "shl-own-0", "shl-own-1"}
	names := func(out string) []string {
		var got []string
		for _, l := range strings.Fields(out) {
			got = append(got, strings.TrimPrefix(l, "storageclass.storage.k8s.io/"))
		}
		return got
	}

	t.Run("kubectl get --chunk-size", func(t *testing.T) {
		for _, chunk := range []string{"1", "2", "4", "500"} {
			assert.Equal(t, want, names(acme.k(t, "get", "storageclasses", "-l", "shl=yes", "--chunk-size", chunk, "-o", "name")), "chunk size %s", chunk)
			table := acme.k(t, "get", "storageclasses", "-l", "shl=yes", "--chunk-size", chunk, "--no-headers", "-o", "custom-columns=NAME:.metadata.name")
			assert.Equal(t, want, names(table), "chunk size %s", chunk)
		}
		table := acme.k(t, "get", "storageclasses", "-l", "shl=yes", "--chunk-size", "2")
		for _, n := range want {
			assert.Contains(t, table, n)
		}
		assert.NotContains(t, table, "shl-own-2")
		assert.NotContains(t, table, "beta")
	})

	t.Run("client-go pages, one resourceVersion", func(t *testing.T) {
		var got []string
		opts := metav1.ListOptions{LabelSelector: "shl=yes", Limit: 2}
		rv := ""
		for {
			list, err := acmeCS.StorageV1().StorageClasses().List(t.Context(), opts)
			require.NoError(t, err)
			for _, c := range list.Items {
				got = append(got, c.Name)
			}
			if rv == "" {
				rv = list.ResourceVersion
			}
			assert.Equal(t, rv, list.ResourceVersion, "every page is the first page's snapshot")
			if list.Continue == "" {
				break
			}
			assert.Len(t, list.Items, 2, "a page is not full although more follow")
			opts.Continue = list.Continue
		}
		assert.Equal(t, want, got)
	})

	t.Run("selectors never reach another tenant", func(t *testing.T) {
		for _, sel := range []string{
			"zoo.kubectl-zoo.io/tenant=beta", "!zoo.kubectl-zoo.io/tenant", "zoo.kubectl-zoo.io/tenant",
			"zoo.kubectl-zoo.io/tenant in (acme,beta)", "zoo.kubectl-zoo.io/tenant notin (acme)",
			"shl=yes,zoo.kubectl-zoo.io/tenant!=acme",
		} {
			res := acme.run(t, "", "get", "storageclasses", "-l", sel, "-o", "name")
			require.Error(t, res.Err, "selector %q: %s", sel, res.Stdout)
			assert.Contains(t, res.Stderr, "Forbidden", sel)
			assert.Empty(t, res.Stdout, sel)
		}
		for field, wantNames := range map[string][]string{
			"metadata.name=shl-own-3":      nil, // beta's own
			"metadata.name=beta-shl-own-3": nil, // beta's as stored upstream
			"metadata.name=shl-own-1":      {"shl-own-1"},
			"metadata.name=shl-cluster-1":  {"shl-cluster-1"},
			"metadata.name!=shl-own-0":     {"shl-cluster-0", "shl-cluster-1", "shl-cluster-2", "shl-own-1"},
		} {
			out := acme.k(t, "get", "storageclasses", "-l", "shl=yes", "--field-selector", field, "--chunk-size", "1", "-o", "name")
			assert.Equal(t, wantNames, names(out), field)
		}
	})

	t.Run("another tenant's continue token is only a position in acme's own list", func(t *testing.T) {
		for limit := int64(1); limit <= 5; limit++ {
			page, err := betaCS.StorageV1().StorageClasses().List(t.Context(), metav1.ListOptions{LabelSelector: "shl=yes", Limit: limit})
			require.NoError(t, err)
			require.NotEmpty(t, page.Continue)
			list, err := acmeCS.StorageV1().StorageClasses().List(t.Context(), metav1.ListOptions{LabelSelector: "shl=yes", Continue: page.Continue})
			require.NoError(t, err, "limit %d", limit)
			for _, c := range list.Items {
				assert.Contains(t, want, c.Name, "limit %d", limit)
			}
		}
	})

	t.Run("a watch from the list's resourceVersion", func(t *testing.T) {
		list, err := acmeCS.StorageV1().StorageClasses().List(t.Context(), metav1.ListOptions{LabelSelector: "shl=yes", Limit: 2})
		require.NoError(t, err)
		w, err := acmeCS.StorageV1().StorageClasses().Watch(t.Context(), metav1.ListOptions{LabelSelector: "shl=yes", ResourceVersion: list.ResourceVersion})
		require.NoError(t, err)
		defer w.Stop()
		// In this order: the upstream sends one stream, so beta's class
		// would come before the last two if it leaked.
		create(betaCS, "shl-watch-beta")
		cleanup = append(cleanup, del(betaCS, "shl-watch-beta"))
		create(acmeCS, "shl-watch-own")
		cleanup = append(cleanup, del(acmeCS, "shl-watch-own"))
		create(upstream, "shl-watch-cluster")
		cleanup = append(cleanup, del(upstream, "shl-watch-cluster"))
		var added []string
		timeout := time.After(30 * time.Second)
		for !slices.Contains(added, "shl-watch-cluster") {
			select {
			case ev, ok := <-w.ResultChan():
				require.True(t, ok, "the watch ended early")
				require.NotEqual(t, watch.Error, ev.Type, "%v", ev.Object)
				c, ok := ev.Object.(*storagev1.StorageClass)
				require.True(t, ok, "%T", ev.Object)
				assert.NotContains(t, c.Name, "beta")
				if ev.Type == watch.Added {
					added = append(added, c.Name)
				}
			case <-timeout:
				t.Fatalf("the watch saw only %v", added)
			}
		}
		assert.Equal(t, []string{"shl-watch-own", "shl-watch-cluster"}, added, "every change after the list, none of beta's")
	})

	t.Run("kubectl get -w: a Table watch", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		lines := startWatch(ctx, t, acme, []string{"get", "storageclasses", "-l", "shl-tw=yes", "-w", "--output-watch-events"})
		for _, c := range []struct {
			cs   kubernetes.Interface
			name string
		}{{betaCS, "shl-tw-beta"}, {acmeCS, "shl-tw-own"}, {upstream, "shl-tw-cluster"}} { // beta's first: one stream
			obj := sc(c.name)
			obj.Labels["shl-tw"] = "yes"
			_, err := c.cs.StorageV1().StorageClasses().Create(t.Context(), obj, metav1.CreateOptions{})
			require.NoError(t, err)
			cleanup = append(cleanup, del(c.cs, c.name))
		}
		var seen []string
		for !slices.ContainsFunc(seen, func(l string) bool { return strings.Contains(l, "shl-tw-cluster") }) {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "the watch ended; it showed %q", seen)
				assert.NotContains(t, l, "beta", "another tenant's class")
				seen = append(seen, l)
			case <-ctx.Done():
				t.Fatalf("the watch never showed the cluster's class; it showed %q", seen)
			}
		}
		assert.True(t, slices.ContainsFunc(seen, func(l string) bool { return strings.Contains(l, "ADDED") && strings.Contains(l, "shl-tw-own") }), "%q", seen)
	})

	t.Run("deletecollection never deletes the cluster's or another tenant's", func(t *testing.T) {
		for _, c := range []struct {
			cs   kubernetes.Interface
			name string
		}{{upstream, "shl-del-cluster"}, {acmeCS, "shl-del-own"}, {betaCS, "shl-del-own"}} {
			obj := sc(c.name)
			obj.Labels["shl-del"] = "yes"
			_, err := c.cs.StorageV1().StorageClasses().Create(t.Context(), obj, metav1.CreateOptions{})
			require.NoError(t, err)
			cleanup = append(cleanup, del(c.cs, c.name))
		}
		// The proxy asks for the tenant's own only; the upstream's
		// zoo-tenant policy refuses a tenant's deletecollection of a
		// cluster-scoped kind outright (the API server admits each item
		// under the collection's empty name).
		err := acmeCS.StorageV1().StorageClasses().DeleteCollection(t.Context(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "shl-del=yes"})
		require.Error(t, err)
		assert.True(t, apierrors.IsForbidden(err), "%v", err)
		left, err := upstream.StorageV1().StorageClasses().List(t.Context(), metav1.ListOptions{LabelSelector: "shl-del=yes"})
		require.NoError(t, err)
		var names []string
		for _, c := range left.Items {
			names = append(names, c.Name)
		}
		assert.Subset(t, names, []string{"shl-del-cluster", "beta-shl-del-own"})
	})
}
