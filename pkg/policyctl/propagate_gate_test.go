package policyctl

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestReconcileMakesTheQuotaLast: in a namespace without a policy quota the
// reconcile makes the LimitRange and NetworkPolicy first and the
// ResourceQuota, which opens the gate, last; when they fail, it makes no
// ResourceQuota there (the namespace stays gated) but still those of the
// other namespaces.
func TestReconcileMakesTheQuotaLast(t *testing.T) {
	withAll := policy.Policy{NetworkIsolation: policy.NetworkIsolationTenant,
		LimitRange: &policy.LimitRange{Max: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
		Quota:      corev1.ResourceList{"count/configmaps": resource.MustParse("10")}}
	t.Run("order", func(t *testing.T) {
		f := newPolicyFakes(t, tenantWithPolicy(t, withAll), "acme-new")
		var order []string
		f.dyn.PrependReactor("patch", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
			order = append(order, action.GetResource().Resource)
			return false, nil, nil
		})
		require.NoError(t, f.c.ReconcileNamespacePolicyObjects(context.Background(), "acme", "acme-new"))
		require.NotEmpty(t, order)
		first := slices.Index(order, "resourcequotas")
		require.GreaterOrEqual(t, first, 0, "the quota is made: %v", order)
		assert.ElementsMatch(t, []string{"limitranges", "networkpolicies"}, order[:first], "before the quota: %v", order)
	})
	t.Run("a refused NetworkPolicy keeps its namespace gated", func(t *testing.T) {
		f := newPolicyFakes(t, tenantWithPolicy(t, withAll), "acme-a", "acme-new")
		f.dyn.PrependReactor("patch", "networkpolicies", func(action k8stesting.Action) (bool, runtime.Object, error) {
			if action.GetNamespace() != "acme-new" {
				return false, nil, nil
			}
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}, platformobj.PolicyObjectName, errors.New("refused"))
		})
		err := f.c.ReconcilePolicyObjects(context.Background(), "acme")
		require.Error(t, err)
		_, err = f.kube.CoreV1().ResourceQuotas("acme-new").Get(context.Background(), platformobj.PolicyObjectName, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "no quota where the NetworkPolicy is missing: %v", err)
		_, err = f.kube.CoreV1().ResourceQuotas("acme-a").Get(context.Background(), platformobj.PolicyObjectName, metav1.GetOptions{})
		assert.NoError(t, err, "the other namespace has its quota")
	})
}

// TestWaitAdmitsUntilTheGateOpens: the reconcile returns only once the
// namespace admits creates (the gate's refusal goes away); another refusal
// of the probe (the tenant's own quota of resourcequotas) means open.
func TestWaitAdmitsUntilTheGateOpens(t *testing.T) {
	gated := errors.New(`ValidatingAdmissionPolicy '` + admissionrules.PolicyObjectsPolicy + `' with binding '` + admissionrules.PolicyObjectsPolicy + `' denied request: no params found`)
	cases := []struct {
		name    string
		answers []error
		probes  int
	}{
		{name: "open at once", answers: []error{nil}, probes: 1},
		{name: "gated twice", answers: []error{gated, gated, nil}, probes: 3},
		{name: "another refusal", answers: []error{gated, errors.New("exceeded quota: blocker")}, probes: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newPolicyFakes(t, tenantWithPolicy(t, policy.Policy{}), "acme-a")
			probes := 0
			f.kube.PrependReactor("create", "resourcequotas", func(action k8stesting.Action) (bool, runtime.Object, error) {
				create := action.(k8stesting.CreateActionImpl)
				assert.Equal(t, []string{metav1.DryRunAll}, create.CreateOptions.DryRun, "the probe creates nothing")
				err := c.answers[min(probes, len(c.answers)-1)]
				probes++
				return true, &corev1.ResourceQuota{}, err
			})
			require.NoError(t, f.c.waitAdmits(context.Background(), []string{"acme-a"}))
			assert.Equal(t, c.probes, probes)
		})
	}
}

// TestNamespacesBeyondTheLimitGetNoPolicyObjects: under a namespace limit
// the slots go to the standard namespaces, then to those holding a policy
// quota, then to the others by age (name on ties); the rest get no policy
// objects, so stay gated — however they were made.
func TestNamespacesBeyondTheLimitGetNoPolicyObjects(t *testing.T) {
	at := func(sec int64) metav1.Time { return metav1.Unix(1_700_000_000+sec, 0) }
	ns := func(name string, sec int64) corev1.Namespace {
		return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: at(sec)}}
	}
	std := []corev1.Namespace{ns("acme-default", 0), ns("acme-kube-system", 0), ns("acme-kube-public", 0), ns("acme-kube-node-lease", 0)}
	cases := []struct {
		name  string
		limit *int32
		extra []corev1.Namespace
		held  []string
		want  []string // the extra namespaces kept
	}{
		{name: "no limit", extra: []corev1.Namespace{ns("acme-a", 5), ns("acme-b", 6)}, want: []string{"acme-a", "acme-b"}},
		{name: "room for one, the older", limit: ptr.To(int32(5)), extra: []corev1.Namespace{ns("acme-b", 6), ns("acme-a", 5)}, want: []string{"acme-a"}},
		{name: "a tie goes by name", limit: ptr.To(int32(5)), extra: []corev1.Namespace{ns("acme-b", 5), ns("acme-a", 5)}, want: []string{"acme-a"}},
		{name: "a held slot is kept", limit: ptr.To(int32(5)), extra: []corev1.Namespace{ns("acme-a", 5), ns("acme-b", 6)}, held: []string{"acme-b"}, want: []string{"acme-b"}},
		{name: "a lowered limit keeps what holds", limit: ptr.To(int32(4)), extra: []corev1.Namespace{ns("acme-a", 5), ns("acme-b", 6), ns("acme-c", 7)},
			held: []string{"acme-a", "acme-b"}, want: []string{"acme-a", "acme-b"}},
		{name: "the standard ones beyond a small limit", limit: ptr.To(int32(1)), extra: []corev1.Namespace{ns("acme-a", 5)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newPolicyFakes(t, tenantWithPolicy(t, policy.Policy{}))
			for _, h := range c.held {
				_, err := f.kube.CoreV1().ResourceQuotas(h).Create(context.Background(), platformobj.PolicyResourceQuota(translate.MustTenant("acme"), h, nil, nil), metav1.CreateOptions{})
				require.NoError(t, err)
			}
			got, err := policyIO{c: f.c}.withinLimit(context.Background(), translate.MustTenant("acme"), policy.Policy{MaxNamespaces: c.limit}, append(slices.Clone(std), c.extra...))
			require.NoError(t, err)
			var names []string
			for _, n := range got {
				names = append(names, n.Name)
			}
			assert.Subset(t, names, []string{"acme-default", "acme-kube-system", "acme-kube-public", "acme-kube-node-lease"}, "the standard namespaces always")
			assert.ElementsMatch(t, c.want, names[len(std):])
		})
	}
}
