package policyctl

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// policyFakes is an upstream of fakes for the policy reconcile: the typed
// clientset holds the namespaces, leases and policy objects, which the
// reconcile reads; its applies (through the dynamic client) are stored
// there too, and counted.
type policyFakes struct {
	kube    *fake.Clientset
	dyn     *dynamicfake.FakeDynamicClient
	c       *Client
	applies int
}

func newPolicyFakes(t *testing.T, rec *tenantapi.Tenant, namespaces ...string) *policyFakes {
	t.Helper()
	u, err := rec.ToUnstructured()
	require.NoError(t, err)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantapi.TenantGVR: tenantapi.TenantKind + "List"}, u)
	f := &policyFakes{kube: fake.NewClientset()}
	for _, ns := range namespaces {
		_, err := f.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
			Labels: map[string]string{translate.TenantLabel: rec.Name}}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	dyn.PrependReactor("patch", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchAction)
		f.applies++
		var obj runtime.Object
		switch patch.GetResource().Resource {
		case "resourcequotas":
			obj = &corev1.ResourceQuota{}
		case "limitranges":
			obj = &corev1.LimitRange{}
		case "networkpolicies":
			obj = &networkingv1.NetworkPolicy{}
		default:
			t.Fatalf("unexpected apply of %s", patch.GetResource())
		}
		require.NoError(t, json.Unmarshal(patch.GetPatch(), obj))
		tracker := f.kube.Tracker()
		gvr := patch.GetResource()
		if rq, ok := obj.(*corev1.ResourceQuota); ok { // an apply of the spec keeps the status
			if cur, err := tracker.Get(gvr, patch.GetNamespace(), patch.GetName()); err == nil {
				rq.Status = cur.(*corev1.ResourceQuota).Status
			}
		}
		if err := tracker.Create(gvr, obj, patch.GetNamespace()); err != nil {
			require.NoError(t, tracker.Update(gvr, obj, patch.GetNamespace()))
		}
		return true, &unstructured.Unstructured{Object: map[string]any{}}, nil
	})
	f.dyn, f.c = dyn, &Client{Client: &upstream.Client{Kube: f.kube, Dynamic: dyn}}
	return f
}

// setPolicy stores policy p in the record, in the fake upstream and in rec
// (the cache's).
func (f *policyFakes) setPolicy(t *testing.T, rec *tenantapi.Tenant, p policy.Policy) {
	t.Helper()
	require.NoError(t, tenantapi.SetPolicy(rec, p))
	u, err := rec.ToUnstructured()
	require.NoError(t, err)
	_, err = f.dyn.Resource(tenantapi.TenantGVR).Update(context.Background(), u, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// cache is a PolicyCache that reads the fakes' current objects without a
// request (as informers that are up to date would).
func (f *policyFakes) cache(rec *tenantapi.Tenant) *PolicyCache {
	tracker := f.kube.Tracker()
	core := func(resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Version: "v1", Resource: resource}
	}
	// The loop's informers hold only objects labeled as a policy's.
	get := func(gvr schema.GroupVersionResource, ns string) (runtime.Object, error) {
		obj, err := tracker.Get(gvr, ns, platformobj.PolicyObjectName)
		if err != nil {
			return nil, err
		}
		if m, ok := obj.(metav1.Object); !ok || m.GetLabels()[translate.PropagatedFromLabel] != translate.PropagatedFromPolicy {
			return nil, apierrors.NewNotFound(gvr.GroupResource(), platformobj.PolicyObjectName)
		}
		return obj, nil
	}
	return &PolicyCache{
		Tenant: func(string) (*tenantapi.Tenant, error) { return rec, nil },
		Namespaces: func(translate.Tenant) ([]corev1.Namespace, error) {
			l, err := tracker.List(core("namespaces"), corev1.SchemeGroupVersion.WithKind("Namespace"), "")
			if err != nil {
				return nil, err
			}
			return l.(*corev1.NamespaceList).Items, nil
		},
		ResourceQuota: func(ns string) (*corev1.ResourceQuota, error) {
			obj, err := get(core("resourcequotas"), ns)
			if err != nil {
				return nil, err
			}
			return obj.(*corev1.ResourceQuota), nil
		},
		LimitRange: func(ns string) (*corev1.LimitRange, error) {
			obj, err := get(core("limitranges"), ns)
			if err != nil {
				return nil, err
			}
			return obj.(*corev1.LimitRange), nil
		},
		NetworkPolicy: func(ns string) (*networkingv1.NetworkPolicy, error) {
			obj, err := get(networkingv1.SchemeGroupVersion.WithResource("networkpolicies"), ns)
			if err != nil {
				return nil, err
			}
			return obj.(*networkingv1.NetworkPolicy), nil
		},
	}
}

func tenantWithPolicy(t *testing.T, p policy.Policy) *tenantapi.Tenant {
	t.Helper()
	rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme", ResourceVersion: "1"}}
	require.NoError(t, tenantapi.SetPolicy(rec, p))
	return rec
}

// TestDryReconcileFindsExactlyTheDrift: once the upstream reconcile has
// made a tenant's policy objects, a dry run on a cache of them finds
// nothing to write and sends nothing; every change that the upstream
// reconcile would write back is drift; and ReconcilePolicyObjectsOnDrift
// writes only then.
func TestDryReconcileFindsExactlyTheDrift(t *testing.T) {
	withLimits := policy.Policy{NetworkIsolation: policy.NetworkIsolationTenant,
		LimitRange: &policy.LimitRange{Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}},
		Quota:      corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}}
	cases := []struct {
		name   string
		policy policy.Policy
		change func(t *testing.T, f *policyFakes, rec *tenantapi.Tenant)
		drift  bool
	}{
		{name: "nothing changed", policy: withLimits},
		{name: "no quota, no limits, no isolation", policy: policy.Policy{NetworkIsolation: policy.NetworkIsolationNone}},
		{name: "a NetworkPolicy deleted", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			require.NoError(t, f.kube.NetworkingV1().NetworkPolicies("acme-b").Delete(context.Background(), platformobj.PolicyObjectName, metav1.DeleteOptions{}))
		}},
		{name: "a LimitRange changed", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			lr, err := f.kube.CoreV1().LimitRanges("acme-a").Get(context.Background(), platformobj.PolicyObjectName, metav1.GetOptions{})
			require.NoError(t, err)
			lr.Annotations[policyHashAnnotation] = "other"
			_, err = f.kube.CoreV1().LimitRanges("acme-a").Update(context.Background(), lr, metav1.UpdateOptions{})
			require.NoError(t, err)
		}},
		{name: "a ResourceQuota raised", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			rq, err := f.kube.CoreV1().ResourceQuotas("acme-a").Get(context.Background(), platformobj.PolicyObjectName, metav1.GetOptions{})
			require.NoError(t, err)
			rq.Spec.Hard[corev1.ResourcePods] = resource.MustParse("10")
			_, err = f.kube.CoreV1().ResourceQuotas("acme-a").Update(context.Background(), rq, metav1.UpdateOptions{})
			require.NoError(t, err)
		}},
		{name: "usage moved the split", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			rq, err := f.kube.CoreV1().ResourceQuotas("acme-b").Get(context.Background(), platformobj.PolicyObjectName, metav1.GetOptions{})
			require.NoError(t, err)
			rq.Status.Used = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("5")}
			_, err = f.kube.CoreV1().ResourceQuotas("acme-b").Update(context.Background(), rq, metav1.UpdateOptions{})
			require.NoError(t, err)
		}},
		{name: "a namespace without objects", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, rec *tenantapi.Tenant) {
			_, err := f.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme-c",
				Labels: map[string]string{translate.TenantLabel: rec.Name}}}, metav1.CreateOptions{})
			require.NoError(t, err)
		}},
		{name: "a namespace labeled for the tenant without its prefix", policy: withLimits, change: func(t *testing.T, f *policyFakes, rec *tenantapi.Tenant) {
			_, err := f.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "beta-x",
				Labels: map[string]string{translate.TenantLabel: rec.Name}}}, metav1.CreateOptions{})
			require.NoError(t, err)
		}},
		{name: "an unlabeled object in the way of one", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			ctx := context.Background()
			require.NoError(t, f.kube.CoreV1().ResourceQuotas("acme-b").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}))
			_, err := f.kube.CoreV1().ResourceQuotas("acme-b").Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: platformobj.PolicyObjectName},
				Spec: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}}, metav1.CreateOptions{})
			require.NoError(t, err)
		}},
		{name: "a quota scope merged into the policy's quota", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			ctx := context.Background()
			rq, err := f.kube.CoreV1().ResourceQuotas("acme-a").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
			require.NoError(t, err)
			rq.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
			rq.Finalizers = []string{"example.com/keep"}
			_, err = f.kube.CoreV1().ResourceQuotas("acme-a").Update(ctx, rq, metav1.UpdateOptions{})
			require.NoError(t, err)
		}},
		{name: "a pod selector merged into the policy's NetworkPolicy", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			ctx := context.Background()
			np, err := f.kube.NetworkingV1().NetworkPolicies("acme-b").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
			require.NoError(t, err)
			np.Spec.PodSelector.MatchLabels = map[string]string{"none": "none"}
			_, err = f.kube.NetworkingV1().NetworkPolicies("acme-b").Update(ctx, np, metav1.UpdateOptions{})
			require.NoError(t, err)
		}},
		{name: "a namespace being deleted keeps its share", policy: withLimits, change: func(t *testing.T, f *policyFakes, _ *tenantapi.Tenant) {
			ctx := context.Background()
			ns, err := f.kube.CoreV1().Namespaces().Get(ctx, "acme-b", metav1.GetOptions{})
			require.NoError(t, err)
			ns.Status.Phase = corev1.NamespaceTerminating
			_, err = f.kube.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{})
			require.NoError(t, err)
		}},
		{name: "the policy changed", policy: withLimits, drift: true, change: func(t *testing.T, f *policyFakes, rec *tenantapi.Tenant) {
			f.setPolicy(t, rec, policy.Policy{NetworkIsolation: policy.NetworkIsolationNone})
		}},
		{name: "an object the policy no longer implies", policy: policy.Policy{NetworkIsolation: policy.NetworkIsolationNone}, drift: true,
			change: func(t *testing.T, f *policyFakes, rec *tenantapi.Tenant) {
				_, err := f.kube.NetworkingV1().NetworkPolicies("acme-a").Create(context.Background(),
					platformobj.PolicyNetworkPolicy(translate.MustTenant(rec.Name), "acme-a", withLimits), metav1.CreateOptions{})
				require.NoError(t, err)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			rec := tenantWithPolicy(t, tc.policy)
			f := newPolicyFakes(t, rec, "acme-a", "acme-b")
			require.NoError(t, f.c.ReconcilePolicyObjects(ctx, "acme"))
			require.NotZero(t, f.applies, "the upstream reconcile made the objects")
			cache := f.cache(rec)
			acme := translate.MustTenant("acme")
			require.NoError(t, f.c.dryReconcilePolicyObjects(ctx, acme, cache), "the upstream reconcile's result is no drift")

			if tc.change != nil {
				tc.change(t, f, rec)
			}
			sent := func() int { return len(f.kube.Actions()) + len(f.dyn.Actions()) }
			// writes are the policy objects applied or deleted (not the Lease).
			writes := func() int {
				n := f.applies
				for _, a := range f.kube.Actions() {
					if a.GetVerb() == "delete" && a.GetResource().Resource != "leases" {
						n++
					}
				}
				return n
			}
			before, written := sent(), writes()
			err := f.c.dryReconcilePolicyObjects(ctx, acme, cache)
			if tc.drift {
				assert.ErrorIs(t, err, errPolicyDrift)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, before, sent(), "a dry run sends nothing upstream")

			require.NoError(t, f.c.ReconcilePolicyObjectsOnDrift(ctx, "acme", cache))
			if tc.drift {
				assert.Greater(t, writes(), written, "drift is written back upstream")
			} else {
				assert.Equal(t, before, sent(), "no drift: nothing sent upstream, no lock taken")
			}
			assert.NoError(t, f.c.dryReconcilePolicyObjects(ctx, acme, cache), "after the reconcile, no drift")
			rqs, err := f.kube.CoreV1().ResourceQuotas("").List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			for _, rq := range rqs.Items {
				assert.Empty(t, rq.Spec.Scopes, "%s: made anew, not merged into", rq.Namespace)
			}
			nps, err := f.kube.NetworkingV1().NetworkPolicies("").List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			for _, np := range nps.Items {
				assert.Empty(t, np.Spec.PodSelector.MatchLabels, "%s: made anew, not merged into", np.Namespace)
			}
		})
	}
}

// TestReconcileOnDriftRetriesWhatTheCacheStillMisses: when the upstream
// reconcile leaves the cache showing drift (the cache is behind, or the
// reconcile read a namespace list that is), ReconcilePolicyObjectsOnDrift
// says so, for the loop to come back; no event may come.
func TestReconcileOnDriftRetriesWhatTheCacheStillMisses(t *testing.T) {
	ctx := context.Background()
	rec := tenantWithPolicy(t, policy.Policy{NetworkIsolation: policy.NetworkIsolationTenant})
	f := newPolicyFakes(t, rec, "acme-a")
	cache := f.cache(rec)
	frozen := *cache
	frozen.NetworkPolicy = func(ns string) (*networkingv1.NetworkPolicy, error) {
		return nil, apierrors.NewNotFound(networkingv1.Resource("networkpolicies"), platformobj.PolicyObjectName)
	}
	err := f.c.ReconcilePolicyObjectsOnDrift(ctx, "acme", &frozen)
	require.ErrorIs(t, err, ErrPolicyStillDrifted)
	assert.NotZero(t, f.applies, "the reconcile ran upstream")
	assert.NoError(t, f.c.ReconcilePolicyObjectsOnDrift(ctx, "acme", cache), "once the cache caught up, nothing is left")
}

// TestOneRefusedApplyHoldsBackNoOther: the tenant's own quota may refuse
// the policy's ResourceQuota in one namespace (a quota of resourcequotas);
// the reconcile reports it and still writes every other namespace's.
func TestOneRefusedApplyHoldsBackNoOther(t *testing.T) {
	ctx := context.Background()
	rec := tenantWithPolicy(t, policy.Policy{NetworkIsolation: policy.NetworkIsolationNone,
		Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}})
	f := newPolicyFakes(t, rec, "acme-a", "acme-b", "acme-c")
	f.dyn.PrependReactor("patch", "resourcequotas", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.GetNamespace() != "acme-b" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(corev1.Resource("resourcequotas"), platformobj.PolicyObjectName, errors.New("exceeded quota: blocker"))
	})
	err := f.c.ReconcilePolicyObjects(ctx, "acme")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exceeded quota")
	for _, ns := range []string{"acme-a", "acme-c"} {
		_, err := f.kube.CoreV1().ResourceQuotas(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		assert.NoError(t, err, "%s has its quota although acme-b's was refused", ns)
	}
}
