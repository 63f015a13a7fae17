package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// watchEnds waits until w's result channel closes (the server ended the
// watch), draining the events it still sends.
func watchEnds(t *testing.T, w watch.Interface, why string) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case _, open := <-w.ResultChan():
			if !open {
				return
			}
		case <-deadline:
			w.Stop()
			t.Fatalf("the watch is still served: %s", why)
		}
	}
}

// TestAttackRevokedTenantKeepsNoWatch: a watch opened while the caller was
// its tenant's administrator, or while its tenant existed, is not served
// on once that changed: the server ends it (the client re-watches, and is
// then judged as it is now). Otherwise the holder of a deleted tenant's
// certificate would keep reading whatever the server streams to it —
// also what a tenant of the same name, made later, writes.
func TestAttackRevokedTenantKeepsNoWatch(t *testing.T) {
	lb, _ := twoReplicas(t)
	ctx := context.Background()
	zoo := func(args ...string) {
		res := framework.Run(ctx, nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
		require.NoError(t, res.Err, res.Stderr)
	}
	zoo("tenant", "create", "revoked")
	admin := clientFor(t, framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:revoked:admin", "zoo:tenant:revoked")))
	records := dynamic.NewForConfigOrDie(framework.Cluster().Config).Resource(tenantapi.TenantGVR)

	w, err := admin.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	_, err = records.Patch(ctx, "revoked", types.MergePatchType, []byte(`{"spec":{"admins":["someone-else"]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	watchEnds(t, w, "the caller is no longer an administrator of its tenant")

	_, err = records.Patch(ctx, "revoked", types.MergePatchType, []byte(`{"spec":{"admins":["admin"]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		w, err = admin.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
		return err == nil
	}, time.Minute, 200*time.Millisecond)
	zoo("tenant", "delete", "revoked", "--wait=false")
	watchEnds(t, w, "the tenant was deleted")
	require.Eventually(t, func() bool {
		_, err := admin.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		return apierrors.IsUnauthorized(err)
	}, time.Minute, 200*time.Millisecond, "a deleted tenant's certificate is refused")
	_, err = records.Get(ctx, "revoked", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}
