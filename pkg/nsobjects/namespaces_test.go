package nsobjects

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func labeled(name, tenant string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{translate.TenantLabel: tenant}}}
}

// TestListNamespacesFromIndex: a tenant's namespaces come from an index
// when there is one that answers (no LIST by label, which filters every
// namespace of the cluster), else from a LIST.
func TestListNamespacesFromIndex(t *testing.T) {
	kube := fake.NewClientset(labeled("acme-listed", "acme"))
	acme := translate.MustTenant("acme")
	answers := true
	index := func(_ context.Context, tn translate.Tenant) ([]corev1.Namespace, bool) {
		return []corev1.Namespace{*labeled("acme-indexed", "acme")}, answers
	}
	names := func() []string {
		nss, err := TenantNamespaces(t.Context(), kube, index, acme)
		require.NoError(t, err)
		var out []string
		for _, ns := range nss {
			out = append(out, ns.Name)
		}
		return out
	}
	assert.Equal(t, []string{"acme-indexed"}, names())
	assert.Empty(t, kube.Actions())
	answers = false
	assert.Equal(t, []string{"acme-listed"}, names())
	assert.Len(t, kube.Actions(), 1)
}

// TestOwned: a namespace is a tenant's when labeled for it and named with
// its prefix, both; one being deleted is kept, marked Terminating.
func TestOwned(t *testing.T) {
	acme := translate.MustTenant("acme")
	now := metav1.Now()
	gone := labeled("acme-gone", "acme")
	gone.DeletionTimestamp = &now
	phase := labeled("acme-phase", "acme")
	phase.Status.Phase = corev1.NamespaceTerminating
	cases := []struct {
		name string
		ns   *corev1.Namespace
		want []Namespace
	}{
		{"labeled and prefixed", labeled("acme-a", "acme"), []Namespace{{Name: "acme-a", Labels: labeled("acme-a", "acme").Labels}}},
		{"labeled for acme, another's name", labeled("evil-a", "acme"), nil},
		{"acme's name, labeled for another", labeled("acme-b", "evil"), nil},
		{"deleted", gone, []Namespace{{Name: "acme-gone", Labels: gone.Labels, Terminating: true}}},
		{"terminating", phase, []Namespace{{Name: "acme-phase", Labels: phase.Labels, Terminating: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Owned(acme, []corev1.Namespace{*tc.ns}))
		})
	}
}
