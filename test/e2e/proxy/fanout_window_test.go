package proxy_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAllNamespacesOverManyNamespaces: an all-namespaces list of a tenant
// with more namespaces than the proxy reads at once (its legs are read
// several at a time) is the namespaces' ConfigMaps in namespace order, then
// name order, with and without pages, every page but the last full, every
// page at the first one's resourceVersion (an object created between pages
// does not show up), and a deletecollection across namespaces deletes them
// all.
func TestAllNamespacesOverManyNamespaces(t *testing.T) {
	acme := serve(t, "acme")
	cs := clientFor(t, acme)
	ctx := context.Background()
	const namespaces, selector = 40, "fanned=yes"
	var want []string
	for i := range namespaces {
		ns := fmt.Sprintf("fanned-%02d", i)
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		require.NoError(t, err)
		for j := range i % 4 { // some namespaces hold none
			name := fmt.Sprintf("cm-%d", j)
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"fanned": "yes"}},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
			want = append(want, ns+"/"+name)
		}
	}

	for _, limit := range []int64{0, 1, 3, 7, 500} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var got []string
			opts := metav1.ListOptions{Limit: limit, LabelSelector: selector}
			rv, late := "", ""
			for pages := 1; ; pages++ {
				require.Less(t, pages, 100, "the pages never end")
				list, err := cs.CoreV1().ConfigMaps("").List(ctx, opts)
				require.NoError(t, err)
				for _, cm := range list.Items {
					got = append(got, cm.Namespace+"/"+cm.Name)
				}
				if rv == "" {
					rv = list.ResourceVersion
					if list.Continue != "" {
						// After the first page: the next ones are still
						// the first one's snapshot.
						late = fmt.Sprintf("late-%d", limit)
						_, err := cs.CoreV1().ConfigMaps(fmt.Sprintf("fanned-%02d", namespaces-1)).Create(ctx, &corev1.ConfigMap{
							ObjectMeta: metav1.ObjectMeta{Name: late, Labels: map[string]string{"fanned": "yes"}},
						}, metav1.CreateOptions{})
						require.NoError(t, err)
					}
				}
				assert.Equal(t, rv, list.ResourceVersion, "page %d", pages)
				if list.Continue == "" {
					break
				}
				assert.Len(t, list.Items, int(limit), "page %d is not full although more follow", pages)
				opts.Continue = list.Continue
			}
			assert.Equal(t, want, got)
			if late != "" {
				err := cs.CoreV1().ConfigMaps(fmt.Sprintf("fanned-%02d", namespaces-1)).Delete(ctx, late, metav1.DeleteOptions{})
				require.NoError(t, err)
			}
		})
	}

	t.Run("deletecollection", func(t *testing.T) {
		require.NoError(t, cs.CoreV1().ConfigMaps("").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: selector}))
		list, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{LabelSelector: selector})
		require.NoError(t, err)
		assert.Empty(t, list.Items)
		assert.Empty(t, admin(t, "get", "configmaps", "-A", "-l", selector, "-o", "name"), "left upstream")
	})

	for i := range namespaces {
		_ = cs.CoreV1().Namespaces().Delete(ctx, fmt.Sprintf("fanned-%02d", i), metav1.DeleteOptions{})
	}
}
