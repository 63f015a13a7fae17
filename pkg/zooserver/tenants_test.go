package zooserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

func tenantRecord(name string, admins ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"admins": admins}}}
	u.SetAPIVersion(tenantapi.TenantGVR.GroupVersion().String())
	u.SetKind(tenantapi.TenantKind)
	u.SetName(name)
	return u
}

// TestTenantIndexRevokes: a record whose spec.admins changes, or that is
// deleted, revokes what its callers were served as; other changes do not.
func TestTenantIndexRevokes(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantapi.TenantGVR: tenantapi.TenantKind + "List"}, tenantRecord("acme", "admin"), tenantRecord("beta", "admin"))
	idx := newTenantIndex(client)
	var mu sync.Mutex
	var revoked []string
	idx.onRevoke(func(tenant string) {
		mu.Lock()
		defer mu.Unlock()
		revoked = append(revoked, tenant)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go idx.run(ctx)
	require.Eventually(t, idx.synced, 10*time.Second, 10*time.Millisecond)
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), revoked...)
	}
	records := client.Resource(tenantapi.TenantGVR)

	labelled := tenantRecord("beta", "admin")
	labelled.SetLabels(map[string]string{"x": "y"})
	_, err := records.Update(ctx, labelled, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = records.Update(ctx, tenantRecord("acme", "someone-else"), metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(got()) == 1 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"acme"}, got(), "beta's label change revokes nothing")
	exists, admin := idx.lookup("acme", "admin")
	assert.True(t, exists)
	assert.False(t, admin)

	require.NoError(t, records.Delete(ctx, "beta", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool { return len(got()) == 2 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"acme", "beta"}, got())
}
