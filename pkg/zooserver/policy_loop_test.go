package zooserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// recordingReconciler records the tenants the loop reconciles and the
// cache it hands over.
type recordingReconciler struct {
	tenants chan string
	cache   chan *policyctl.PolicyCache
}

func (r *recordingReconciler) ReconcilePolicyObjectsOnDrift(_ context.Context, tenant string, c *policyctl.PolicyCache) error {
	r.tenants <- tenant
	r.cache <- c
	return nil
}

// TestPolicyLoopCacheReadsItsInformers: the cache the loop hands to every
// reconcile answers from the loop's informers (the tenant records, the
// namespaces by tenant label, the policy objects labeled as a policy's),
// NotFound for what they do not hold, and every tenant is reconciled once
// at the start.
func TestPolicyLoopCacheReadsItsInformers(t *testing.T) {
	acme := translate.MustTenant("acme")
	policyLabels := platformobj.PolicyObjectLabels(acme)
	kube := fake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme-a", Labels: map[string]string{translate.TenantLabel: "acme"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "beta-a", Labels: map[string]string{translate.TenantLabel: "beta"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "plain"}},
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: platformobj.PolicyObjectName, Namespace: "acme-a", Labels: policyLabels}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: platformobj.PolicyObjectName, Namespace: "acme-a"}}, // a squatter: unlabeled
	)
	rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}}
	u, err := rec.ToUnstructured()
	require.NoError(t, err)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantapi.TenantGVR: tenantapi.TenantKind + "List"}, u)
	tenants := newTenantIndex(dyn).informer
	r := &recordingReconciler{tenants: make(chan string, 10), cache: make(chan *policyctl.PolicyCache, 10)}
	l, err := newPolicyLoop(kube, r, tenants)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tenants.RunWithContext(ctx)
	require.True(t, cache.WaitForCacheSync(ctx.Done(), tenants.HasSynced))
	go l.run(ctx)

	select {
	case got := <-r.tenants:
		assert.Equal(t, "acme", got, "every tenant is reconciled at the start")
	case <-time.After(10 * time.Second):
		t.Fatal("the loop reconciled no tenant")
	}
	c := <-r.cache
	require.Same(t, l.cache, c)

	got, err := c.Tenant("acme")
	require.NoError(t, err)
	assert.Equal(t, "acme", got.Name)
	_, err = c.Tenant("ghost")
	assert.True(t, apierrors.IsNotFound(err), "a tenant without a record: %v", err)

	nss, err := c.Namespaces(acme)
	require.NoError(t, err)
	require.Len(t, nss, 1, "the namespaces labeled for acme only")
	assert.Equal(t, "acme-a", nss[0].Name)

	rq, err := c.ResourceQuota("acme-a")
	require.NoError(t, err)
	assert.Equal(t, policyLabels, rq.Labels)
	_, err = c.LimitRange("acme-a")
	assert.True(t, apierrors.IsNotFound(err), "an unlabeled object is not the policy's: %v", err)
	_, err = c.NetworkPolicy("acme-a")
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}
