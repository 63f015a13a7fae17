package tenantprop

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

// TestTenantNamespacesFromIndex: the propagator takes a tenant's namespaces
// from an index when it has one that answers (no LIST by label, which
// filters every namespace of the cluster), else lists them.
func TestTenantNamespacesFromIndex(t *testing.T) {
	labeled := func(name string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{translate.TenantLabel: "acme"}}}
	}
	kube := fake.NewClientset(labeled("acme-listed"))
	acme := translate.MustTenant("acme")
	names := func(p *Propagator) []string {
		nss, err := p.tenantNamespaces(t.Context(), acme)
		require.NoError(t, err)
		var out []string
		for _, ns := range nss {
			out = append(out, ns.Name)
		}
		return out
	}
	answers := true
	p := &Propagator{kub: kube, Namespaces: func(_ context.Context, tn translate.Tenant) ([]corev1.Namespace, bool) {
		return []corev1.Namespace{*labeled("acme-indexed")}, answers
	}}
	assert.Equal(t, []string{"acme-indexed"}, names(p))
	assert.Empty(t, kube.Actions())
	answers = false
	assert.Equal(t, []string{"acme-listed"}, names(p))
	assert.Len(t, kube.Actions(), 1)
}
