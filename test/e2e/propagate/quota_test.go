package propagate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// podManifest is a pod the tenant creates through the proxy.
func podManifest(name string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}`
}

// TestTenantWideQuotaHolds: with a tenant-wide quota of 6 pods over the 4
// standard namespaces, a tenant filling every namespace through the proxy
// gets exactly 6 pods; each refusal is a 403 in the tenant's names; the
// pods a Deployment asks for are refused too (its ReplicaSet's
// FailedCreate says why, in the tenant's names), and the sum still holds.
func TestTenantWideQuotaHolds(t *testing.T) {
	createTenant(t, "pq")
	setPolicy(t, "pq", policy.Policy{Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}, NetworkIsolation: policy.NetworkIsolationNone})
	s := serve(t, "pq")

	// The quota controller fills each quota's status before quota admission
	// admits anything there.
	admin := framework.AdminClient(t)
	require.Eventually(t, func() bool {
		for _, ns := range tenantNamespaces(t, "pq") {
			rq, err := admin.CoreV1().ResourceQuotas(ns).Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
			if err != nil || rq.Status.Hard == nil {
				return false
			}
		}
		return true
	}, 30*time.Second, 200*time.Millisecond, "the quotas' status")

	admitted := 0
	var refusal string
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		for i := range 8 {
			res := kubectl(t.Context(), s.kubeconfig, podManifest(fmt.Sprintf("p%d", i)), "create", "-n", ns, "-f", "-")
			if res.Err != nil {
				refusal = res.Stderr
				break
			}
			admitted++
		}
	}
	assert.Equal(t, 6, admitted, "the tenant-wide quota, summed over its namespaces")
	assert.Contains(t, refusal, "Forbidden")
	assert.Contains(t, refusal, "exceeded quota: "+platformobj.PolicyObjectName)
	assert.NotContains(t, refusal, "pq-", "the refusal speaks the tenant's names")

	res := kubectl(t.Context(), s.kubeconfig, "", "create", "deployment", "web", "-n", "default", "--image=registry.k8s.io/pause:3.10", "--replicas=2")
	require.NoError(t, res.Err, res.Stderr)
	var msg string
	require.Eventually(t, func() bool {
		res := kubectl(t.Context(), s.kubeconfig, "", "get", "replicasets", "-n", "default", "-l", "app=web",
			"-o", `jsonpath={.items[*].status.conditions[?(@.type=="ReplicaFailure")].message}`)
		msg = res.Stdout
		return strings.Contains(msg, "exceeded quota")
	}, 60*time.Second, 500*time.Millisecond, "the ReplicaSet's FailedCreate: %q", msg)
	assert.NotContains(t, msg, "pq-", "the ReplicaSet's refusal speaks the tenant's names")

	total := 0
	for _, ns := range tenantNamespaces(t, "pq") {
		pods, err := admin.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		total += len(pods.Items)
	}
	assert.Equal(t, 6, total, "no pod beyond the tenant-wide quota, whoever creates it")
}
