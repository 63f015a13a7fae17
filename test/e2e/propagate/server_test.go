package propagate_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestServerMakesAndRepairsPolicyObjects runs two replicas of the
// multi-tenant server (with exactly the RBAC `install --server` grants): a
// namespace the tenant creates through them has its policy objects when the
// create is answered; their reconcile loop repairs a deleted object, gives a
// namespace made directly upstream its objects, carries a policy change to
// every namespace, and moves the quota split to where it is used.
func TestServerMakesAndRepairsPolicyObjects(t *testing.T) {
	createTenant(t, "psrv")
	r1, r2 := framework.StartReplica(t), framework.StartReplica(t)
	lb := framework.NewBalancer(t, false, r1.Addr, r2.Addr)
	kc := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:psrv:admin", "zoo:tenant:psrv"))
	admin := framework.AdminClient(t)
	ctx := t.Context()

	res := kubectl(ctx, kc, "", "create", "namespace", "srv")
	require.NoError(t, res.Err, res.Stderr)
	requirePolicyObjects(t, "psrv", "psrv-srv", true, false) // no waiting

	eventually := func(what string, ok func() bool) {
		t.Helper()
		require.Eventually(t, ok, 60*time.Second, 250*time.Millisecond, what)
	}
	require.NoError(t, admin.CoreV1().ResourceQuotas("psrv-srv").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}))
	require.NoError(t, admin.NetworkingV1().NetworkPolicies("psrv-srv").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}))
	eventually("the loop repairs the deleted objects", func() bool {
		_, err1 := admin.CoreV1().ResourceQuotas("psrv-srv").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		_, err2 := admin.NetworkingV1().NetworkPolicies("psrv-srv").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		return err1 == nil && err2 == nil
	})

	labels := map[string]string{translate.TenantLabel: "psrv"}
	for k, v := range translate.PodSecurityLabels(translate.DefaultPodSecurityLevel) {
		labels[k] = v
	}
	_, err := asTenant(t, "psrv").CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "psrv-direct", Labels: labels}}, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually("the loop makes the objects of a namespace made directly upstream", func() bool {
		_, err := admin.CoreV1().ResourceQuotas("psrv-direct").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		return err == nil
	})

	// A policy change reaches every namespace (stored only: no reconcile
	// of the test's own).
	storePolicy(t, "psrv", policy.Policy{NetworkIsolation: policy.NetworkIsolationNone,
		Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("12")}})
	namespaces := tenantNamespaces(t, "psrv")
	require.Len(t, namespaces, 6)
	eventually("the loop carries the policy to every namespace", func() bool {
		var total resource.Quantity
		for _, ns := range namespaces {
			if _, err := admin.NetworkingV1().NetworkPolicies(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false
			}
			rq, err := admin.CoreV1().ResourceQuotas(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
			if err != nil || rq.Status.Hard == nil {
				return false
			}
			total.Add(rq.Spec.Hard[corev1.ResourcePods])
		}
		return total.Value() == 12
	})

	// 12 pods over 6 namespaces: 2 each. The third pod in one namespace is
	// refused until the loop, seeing the use, moves free share there.
	for i := range 2 {
		eventually("a pod within the namespace's share", func() bool {
			res = kubectl(ctx, kc, podManifest(fmt.Sprintf("p%d", i)), "create", "-n", "srv", "-f", "-")
			return res.Err == nil
		})
	}
	eventually("the loop rebalances the split towards its use", func() bool {
		res = kubectl(ctx, kc, podManifest("p2"), "create", "-n", "srv", "-f", "-")
		return res.Err == nil
	})
	// One LIST: a snapshot. A GET per namespace could add a share read
	// before a rebalance lowered it to one read after it raised another.
	rqs, err := admin.CoreV1().ResourceQuotas("").List(ctx, metav1.ListOptions{LabelSelector: policyctl.PolicySelector(translate.MustTenant("psrv"))})
	require.NoError(t, err)
	require.Len(t, rqs.Items, len(namespaces))
	var total resource.Quantity
	for _, rq := range rqs.Items {
		total.Add(rq.Spec.Hard[corev1.ResourcePods])
	}
	require.LessOrEqual(t, total.Value(), int64(12), "the shares never add up to more than the quota")
}
