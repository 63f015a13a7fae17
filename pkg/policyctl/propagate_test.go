package policyctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// sum adds up resource name over the hard of every namespace.
func sum(hard map[string]corev1.ResourceList, name corev1.ResourceName) resource.Quantity {
	var total resource.Quantity
	for _, h := range hard {
		if v, ok := h[name]; ok {
			total.Add(v)
		}
	}
	return total
}

func TestSplitQuota(t *testing.T) {
	for _, tc := range []struct {
		name   string
		q      corev1.ResourceList
		shares []QuotaShare
		want   map[string]corev1.ResourceList
	}{
		{"even split of nothing used", list("pods", "10", "requests.cpu", "4"),
			[]QuotaShare{{Namespace: "a"}, {Namespace: "b"}},
			map[string]corev1.ResourceList{"a": list("pods", "5", "requests.cpu", "2"), "b": list("pods", "5", "requests.cpu", "2")}},
		{"usage kept, the free part shared, the remainder to the busiest", list("pods", "10"),
			[]QuotaShare{{Namespace: "a", Used: list("pods", "1")}, {Namespace: "b", Used: list("pods", "4")}, {Namespace: "c"}},
			map[string]corev1.ResourceList{"a": list("pods", "3"), "b": list("pods", "6"), "c": list("pods", "1")}},
		{"a quota smaller than the namespaces follows use", list("pods", "3"),
			[]QuotaShare{{Namespace: "a"}, {Namespace: "b"}, {Namespace: "c"}, {Namespace: "z", Used: list("pods", "1")}},
			map[string]corev1.ResourceList{"a": list("pods", "1"), "b": list("pods", "0"), "c": list("pods", "0"), "z": list("pods", "2")}},
		{"cpu in thousandths", list("requests.cpu", "1"),
			[]QuotaShare{{Namespace: "a", Used: list("requests.cpu", "250m")}, {Namespace: "b"}},
			map[string]corev1.ResourceList{"a": list("requests.cpu", "625m"), "b": list("requests.cpu", "375m")}},
		{"over the quota: everyone keeps its use, nothing more", list("pods", "2"),
			[]QuotaShare{{Namespace: "a", Used: list("pods", "2")}, {Namespace: "b", Used: list("pods", "1")}},
			map[string]corev1.ResourceList{"a": list("pods", "2"), "b": list("pods", "1")}},
		{"a terminating namespace keeps what it holds", list("pods", "10"),
			[]QuotaShare{{Namespace: "a"}, {Namespace: "old", Hard: list("pods", "6"), Used: list("pods", "1"), Fixed: true}},
			map[string]corev1.ResourceList{"a": list("pods", "4")}},
		{"no quota", nil, []QuotaShare{{Namespace: "a"}}, map[string]corev1.ResourceList{"a": {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitQuota(tc.q, tc.shares)
			require.Len(t, got, len(tc.want))
			for ns, want := range tc.want {
				assert.True(t, sameList(want, got[ns]), "%s: want %v, got %v", ns, want, got[ns])
			}
		})
	}
}

// TestRebalanceNeverPromisesMoreThanTheQuota walks lower-then-raise over
// changing usage, as reconcileQuota does, and checks at every step that
// Σ max(hard, used) stays within the quota, also when a namespace used up
// its old share between the read and the lowering.
func TestRebalanceNeverPromisesMoreThanTheQuota(t *testing.T) {
	q := list("pods", "20")
	shares := []QuotaShare{
		{Namespace: "a", Hard: list("pods", "10"), Used: list("pods", "5")},
		{Namespace: "b", Hard: list("pods", "10"), Used: list("pods", "10")},
		{Namespace: "c"},
	}
	want := SplitQuota(q, shares)
	// a admits 5 more pods (up to its old hard) before it is lowered.
	shares[0].Used = list("pods", "10")
	promised := func() int64 {
		var total int64
		for _, s := range shares {
			h, u := s.Hard[corev1.ResourcePods], s.Used[corev1.ResourcePods]
			total += max(h.Value(), u.Value())
		}
		return total
	}
	for i := range shares {
		shares[i].Hard = lowered(shares[i].Hard, want[shares[i].Namespace])
		assert.LessOrEqual(t, promised(), int64(20), "after lowering %s", shares[i].Namespace)
	}
	for ns, hard := range raised(q, shares, want) {
		for i := range shares {
			if shares[i].Namespace == ns {
				shares[i].Hard = hard
			}
		}
		assert.LessOrEqual(t, promised(), int64(20), "after raising %s", ns)
	}
	assert.Equal(t, int64(20), promised(), "the whole quota is handed out")
	hard := map[string]corev1.ResourceList{}
	for _, s := range shares {
		hard[s.Namespace] = s.Hard
	}
	total := sum(hard, corev1.ResourcePods)
	assert.LessOrEqual(t, total.Value(), int64(20))
}

func TestPolicyObjects(t *testing.T) {
	acme := translate.MustTenant("acme")
	p := policy.Effective(policy.Policy{}, policy.Default())

	rq := platformobj.PolicyResourceQuota(acme, "acme-dev", nil, nil)
	assert.Equal(t, platformobj.PolicyObjectName, rq.Name)
	assert.Equal(t, translate.PropagatedFromPolicy, rq.Labels[translate.PropagatedFromLabel])
	assert.Equal(t, "acme", rq.Labels[translate.TenantLabel])
	assert.NotNil(t, rq.Spec.Hard, "the quota exists, empty, without a tenant quota")

	assert.Nil(t, platformobj.PolicyLimitRange(acme, "acme-dev", p), "no limit range by default")
	p.LimitRange = &policy.LimitRange{Default: list("cpu", "200m"), Max: list("memory", "1Gi")}
	lr := platformobj.PolicyLimitRange(acme, "acme-dev", p)
	require.NotNil(t, lr)
	require.Len(t, lr.Spec.Limits, 1)
	assert.Equal(t, corev1.LimitTypeContainer, lr.Spec.Limits[0].Type)

	np := platformobj.PolicyNetworkPolicy(acme, "acme-dev", p)
	require.NotNil(t, np, "network isolation is on by default")
	assert.Empty(t, np.Spec.PodSelector.MatchLabels, "every pod of the namespace")
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	require.Len(t, np.Spec.Ingress, 1)
	require.Len(t, np.Spec.Ingress[0].From, 1)
	assert.Equal(t, []metav1.LabelSelectorRequirement{{Key: translate.TenantLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"acme"}}},
		np.Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions)
	assert.Nil(t, np.Spec.Ingress[0].From[0].IPBlock, "no address block lets another tenant's pods in")
	for _, rule := range np.Spec.Egress {
		for _, peer := range rule.To {
			if peer.IPBlock != nil {
				assert.Contains(t, peer.IPBlock.Except, map[string]string{"0.0.0.0/0": "169.254.0.0/16", "::/0": "fe80::/10"}[peer.IPBlock.CIDR],
					"no cloud metadata endpoint")
			}
		}
	}
	p.NetworkIsolation = policy.NetworkIsolationNone
	assert.Nil(t, platformobj.PolicyNetworkPolicy(acme, "acme-dev", p))
}
