package propagate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestServerLoopLeavesUndriftedTenantsAlone: the server's policy loop
// reconciles a tenant at its start and at every event of the tenant's
// namespaces and policy objects, but takes the tenant's lock (the Lease
// every locked reconcile renews) and writes only when the objects drifted.
// Events that change nothing the policy implies, and a second replica's
// start, leave the Lease as it is; a deleted NetworkPolicy is repaired
// under it.
func TestServerLoopLeavesUndriftedTenantsAlone(t *testing.T) {
	const tenant = "pidle"
	createTenant(t, tenant)
	r1 := framework.StartReplica(t)
	kc := framework.ServerKubeconfigFor(t, "https://"+r1.Addr, framework.ClusterCert(t, "zoo:"+tenant+":admin", "zoo:tenant:"+tenant))
	ctx := t.Context()
	admin := framework.AdminClient(t)
	for _, ns := range []string{"one", "two"} {
		res := kubectl(ctx, kc, "", "create", "namespace", ns)
		require.NoError(t, res.Err, res.Stderr)
	}
	leases := admin.CoordinationV1().Leases(metav1.NamespaceSystem)
	lockName := policyctl.PolicyLockName(translate.MustTenant(tenant))
	leaseVersion := func() string {
		l, err := leases.Get(ctx, lockName, metav1.GetOptions{})
		require.NoError(t, err)
		return l.ResourceVersion
	}
	// Idle: the Lease stays unchanged for 3 s (the loop batches events for
	// a second; the usage of a quota for 5).
	var before string
	stable := 0
	require.Eventually(t, func() bool {
		now := leaseVersion()
		if now == before {
			stable++
		} else {
			before, stable = now, 0
		}
		return stable >= 12
	}, 60*time.Second, 250*time.Millisecond, "the loop settles")

	// Events of the tenant's namespace and policy objects that leave the
	// policy's objects as they should be, and another replica's first pass.
	_, err := admin.CoreV1().Namespaces().Patch(ctx, tenant+"-one", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"example.com/team":"blue"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	_, err = admin.CoreV1().ResourceQuotas(tenant+"-two").Patch(ctx, platformobj.PolicyObjectName, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"example.com/seen":"yes"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	r2 := framework.StartReplica(t, "-v=3")
	require.Eventually(t, func() bool {
		return strings.Contains(r2.Stderr(), `"policy objects in sync" tenant="`+tenant+`"`)
	}, 60*time.Second, 250*time.Millisecond, "the second replica's first pass reaches the tenant")
	assert.Never(t, func() bool { return leaseVersion() != before }, 8*time.Second, 250*time.Millisecond,
		"no drift: the loop neither locks nor writes")

	// Drift: the loop repairs it, under the lock.
	require.NoError(t, admin.NetworkingV1().NetworkPolicies(tenant+"-one").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, err := admin.NetworkingV1().NetworkPolicies(tenant+"-one").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		return err == nil
	}, 60*time.Second, 250*time.Millisecond, "the loop repairs the deleted NetworkPolicy")
	assert.NotEqual(t, before, leaseVersion(), "the repair took the lock")

	// The repaired namespace is whole again.
	requirePolicyObjects(t, tenant, tenant+"-one", true, false)
}
