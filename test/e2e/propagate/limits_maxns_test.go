package propagate_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// usable are the namespaces of tenant that admit creates (a dry-run
// create of the admin passes zoo-tenant-policy-objects).
func usable(t *testing.T, tenant string) []string {
	t.Helper()
	out, err := usableNamespaces(t.Context(), tenant)
	require.NoError(t, err)
	return out
}

// usableNamespaces is usable without the test: a condition of
// require.Never runs in a goroutine of its own, which may still be asking
// when the test has ended, so it may neither fail the test nor use its
// context.
func usableNamespaces(ctx context.Context, tenant string) ([]string, error) {
	client, err := kubernetes.NewForConfig(framework.Cluster().Config)
	if err != nil {
		return nil, err
	}
	list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: translate.TenantLabel + "=" + tenant})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ns := range list.Items {
		if ns.DeletionTimestamp != nil {
			continue
		}
		_, err := client.CoreV1().ConfigMaps(ns.Name).Create(ctx, configMap("probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			out = append(out, ns.Name)
		}
	}
	return out, nil
}

// TestNamespaceLimitHoldsForWhatNamespacesHold: the upstream refuses a
// namespace create only once the limit's mark exists, so namespaces the
// tenant identity creates directly upstream at once can outnumber the
// limit; but one beyond the limit gets no policy objects and admits no
// create at all — not the tenant's RoleBinding, not the admin's ConfigMap
// — until a slot frees up. Without the server (the reconcile of `policy
// set`) and with it (its loop). Before, every such namespace got its
// policy objects and could be filled.
func TestNamespaceLimitHoldsForWhatNamespacesHold(t *testing.T) {
	createTenant(t, "plns")
	others := othersConfigMaps(t)
	ctx := t.Context()
	tenant := asTenant(t, "plns")
	// Four standard namespaces and room for one more; no mark yet.
	storePolicy(t, "plns", policy.Policy{MaxNamespaces: ptr.To(int32(5))})

	t.Run("directly upstream, reconciled by policy set", func(t *testing.T) {
		rawNamespace(t, "plns", "plns-one")
		rawNamespace(t, "plns", "plns-two") // the limit's mark is not there yet
		require.NoError(t, policyctl.New(zooClient(t).Client).ReconcilePolicyObjects(ctx, "plns"))
		requirePolicyObjects(t, "plns", "plns-one", true, false)
		_, err := framework.AdminClient(t).CoreV1().ResourceQuotas("plns-two").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		require.Error(t, err, "the namespace beyond the limit gets no quota")
		_, err = tenant.RbacV1().RoleBindings("plns-two").Create(ctx, adminsBinding("plns"), metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		_, err = framework.AdminClient(t).CoreV1().ConfigMaps("plns-two").Create(ctx, configMap("c"), metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		assert.Len(t, usable(t, "plns"), 5, "as many usable namespaces as the limit")

		// A slot freed is the next namespace's.
		require.NoError(t, tenant.CoreV1().Namespaces().Delete(ctx, "plns-one", metav1.DeleteOptions{}))
		require.Eventually(t, func() bool {
			_, err := framework.AdminClient(t).CoreV1().Namespaces().Get(ctx, "plns-one", metav1.GetOptions{})
			return err != nil
		}, 60*time.Second, 250*time.Millisecond, "plns-one is gone")
		require.NoError(t, policyctl.New(zooClient(t).Client).ReconcilePolicyObjects(ctx, "plns"))
		requirePolicyObjects(t, "plns", "plns-two", true, false)
		_, err = tenant.RbacV1().RoleBindings("plns-two").Create(ctx, adminsBinding("plns"), metav1.CreateOptions{})
		require.NoError(t, err)
	})

	t.Run("directly upstream, with the server's loop", func(t *testing.T) {
		framework.StartReplica(t)
		// plns-two holds the fifth slot; two more, at once.
		for _, name := range []string{"plns-three", "plns-four"} {
			if _, err := tenant.CoreV1().Namespaces().Create(ctx, rawNamespaceObject("plns", name), metav1.CreateOptions{}); err != nil {
				assert.Contains(t, err.Error(), "as many namespaces as its policy allows", "only the limit's mark may refuse")
			}
		}
		require.Eventually(t, func() bool { return len(tenantNamespaces(t, "plns")) >= 5 }, 30*time.Second, 250*time.Millisecond)
		// The loop reconciles the tenant at once; nothing it does may open
		// a namespace beyond the limit.
		var mu sync.Mutex
		var listErr error
		require.Never(t, func() bool {
			names, err := usableNamespaces(context.Background(), "plns")
			mu.Lock()
			defer mu.Unlock()
			if err != nil && listErr == nil {
				listErr = err
			}
			return len(names) > 5
		}, 5*time.Second, 500*time.Millisecond, "no more usable namespaces than the limit")
		mu.Lock()
		require.NoError(t, listErr, "every look at the namespaces was answered")
		mu.Unlock()
	})
	assert.Equal(t, others, othersConfigMaps(t), "beta is untouched")
}
