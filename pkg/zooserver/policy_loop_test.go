package zooserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// countingReconciler counts the reconciles of each tenant.
type countingReconciler struct {
	mu  sync.Mutex
	got map[string]int
}

func (c *countingReconciler) ReconcilePolicyObjects(_ context.Context, tenant string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got[tenant]++
	return nil
}

func (c *countingReconciler) count(tenant string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[tenant]
}

// TestPolicyLoopResyncs: every tenant is reconciled once when the loop
// starts, and again every resync, with nothing changed: the drift repair
// the docs promise (the records' informer itself does not resync).
func TestPolicyLoopResyncs(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantctl.TenantGVR: tenantctl.TenantKind + "List"}, tenantRecord("acme", "admin"), tenantRecord("beta", "admin"))
	idx := newTenantIndex(client)
	rec := &countingReconciler{got: map[string]int{}}
	l := newPolicyLoop(fake.NewClientset(), rec, idx.informer)
	l.resync = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go idx.run(ctx)
	require.Eventually(t, idx.synced, 10*time.Second, 10*time.Millisecond)
	go l.run(ctx)
	for _, tenant := range []string{"acme", "beta"} {
		require.Eventually(t, func() bool { return rec.count(tenant) >= 3 }, 10*time.Second, 10*time.Millisecond,
			"tenant %s was reconciled %d times", tenant, rec.count(tenant))
	}
	assert.Zero(t, rec.count("gamma"))
}
