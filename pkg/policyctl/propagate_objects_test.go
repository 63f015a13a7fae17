package policyctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nsobjects"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestKindPlan: a policy object is applied where it is missing, was
// applied from another spec or is not sound, left alone where it was
// applied from this spec, and deleted where the policy no longer implies
// it.
func TestKindPlan(t *testing.T) {
	acme := translate.MustTenant("acme")
	isolated := policy.Policy{NetworkIsolation: policy.NetworkIsolationTenant}
	// applied is the NetworkPolicy of ns as the reconcile applies it, as
	// read back, changed by change.
	applied := func(ns string, change func(np *networkingv1.NetworkPolicy)) metav1.Object {
		np := platformobj.PolicyNetworkPolicy(acme, ns, isolated)
		hash, err := specHash(np.Spec)
		require.NoError(t, err)
		np.Annotations = map[string]string{policyHashAnnotation: hash}
		np.ResourceVersion, np.UID = "5", types.UID("uid-"+ns)
		if change != nil {
			change(np)
		}
		return np
	}
	now := metav1.Now()
	cases := []struct {
		name                   string
		policy                 policy.Policy
		found                  map[string]metav1.Object
		create, update, delete []string
		unsound                []string
	}{{
		name: "missing: applied", policy: isolated,
		found:  map[string]metav1.Object{"acme-a": applied("acme-a", nil)},
		create: []string{"acme-b"},
	}, {
		name: "applied from this spec: left alone", policy: isolated,
		found: map[string]metav1.Object{"acme-a": applied("acme-a", nil), "acme-b": applied("acme-b", nil)},
	}, {
		name: "applied from another spec: applied again", policy: isolated,
		found: map[string]metav1.Object{"acme-a": applied("acme-a", func(np *networkingv1.NetworkPolicy) {
			np.Annotations[policyHashAnnotation] = "old"
		}), "acme-b": applied("acme-b", nil)},
		update: []string{"acme-a"},
	}, {
		name: "a pod selector merged in: replaced, whatever its hash", policy: isolated,
		found: map[string]metav1.Object{"acme-a": applied("acme-a", nil), "acme-b": applied("acme-b", func(np *networkingv1.NetworkPolicy) {
			np.Spec.PodSelector.MatchLabels = map[string]string{"app": "one"}
		})},
		update: []string{"acme-b"}, unsound: []string{"acme-b"},
	}, {
		name: "being deleted: replaced", policy: isolated,
		found: map[string]metav1.Object{"acme-a": applied("acme-a", func(np *networkingv1.NetworkPolicy) { np.DeletionTimestamp = &now }),
			"acme-b": applied("acme-b", nil)},
		update: []string{"acme-a"}, unsound: []string{"acme-a"},
	}, {
		name: "no longer implied: deleted", policy: policy.Policy{NetworkIsolation: policy.NetworkIsolationNone},
		found:  map[string]metav1.Object{"acme-b": applied("acme-b", nil)},
		delete: []string{"acme-b"},
	}}
	where := func(objs []nsobjects.Object) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.GetNamespace())
		}
		return out
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			built, unsound := map[string]runtime.Object{}, map[string]bool{}
			plan, err := kindPlan(acme, tc.policy, []string{"acme-a", "acme-b"}, networkPolicyKind, tc.found, built, unsound)
			require.NoError(t, err)
			assert.Equal(t, tc.create, where(plan.Create))
			assert.Equal(t, tc.update, where(plan.Update))
			assert.Equal(t, tc.delete, where(plan.Delete))
			for _, ns := range tc.unsound {
				assert.True(t, unsound[ns], "replaced like a squatter: %s", ns)
			}
			for _, o := range append(plan.Create, plan.Update...) {
				np, ok := built[o.GetNamespace()].(*networkingv1.NetworkPolicy)
				require.True(t, ok, "the writer applies the built object")
				assert.Empty(t, np.ResourceVersion, "an apply sets no precondition")
				assert.NotEmpty(t, np.Annotations[policyHashAnnotation])
			}
		})
	}
}
