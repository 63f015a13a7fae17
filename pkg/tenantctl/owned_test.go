package tenantctl

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

func TestOwned(t *testing.T) {
	obj := func(kind, name, label, group string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind}}
		if kind == "CustomResourceDefinition" {
			u.SetAPIVersion("apiextensions.k8s.io/v1")
			u.Object["spec"] = map[string]any{"group": group}
		}
		u.SetName(name)
		if label != "" {
			u.SetLabels(map[string]string{translate.TenantLabel: label})
		}
		return u
	}
	acme, kube := translate.MustTenant("acme"), translate.MustTenant("kubes")
	for _, tc := range []struct {
		name   string
		tenant translate.Tenant
		obj    *unstructured.Unstructured
		want   bool
	}{
		{"label and prefix", acme, obj("ClusterRole", "acme-view", "acme", ""), true},
		{"prefix without label", acme, obj("ClusterRole", "acme-view", "", ""), false},
		{"label without prefix", acme, obj("ClusterRole", "view", "acme", ""), false},
		{"label, prefix without separator", acme, obj("ClusterRole", "acmeb-view", "acme", ""), false},
		{"bare tenant name", acme, obj("ClusterRole", "acme", "acme", ""), false},
		{"another tenant's label", acme, obj("Namespace", "acme-default", "acmeb", ""), false},
		{"kubes never owns kube-system", kube, obj("Namespace", "kube-system", "kubes", ""), false},
		{"CRD by group", acme, obj("CustomResourceDefinition", "crontabs.acme-stable.example.com", "acme", "acme-stable.example.com"), true},
		{"CRD in another group", acme, obj("CustomResourceDefinition", "acme-x.stable.example.com", "acme", "stable.example.com"), false},
		{"CRD in a built-in group", acme, obj("CustomResourceDefinition", "things.apps", "acme", "apps"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Owned(tc.tenant, tc.obj))
		})
	}
}

func TestTenantNamespaces(t *testing.T) {
	ns := func(name, label string) *corev1.Namespace {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if label != "" {
			n.Labels = map[string]string{translate.TenantLabel: label}
		}
		return n
	}
	kube := fake.NewClientset(
		ns("acme-default", "acme"), ns("acme-web", "acme"),
		ns("acme-decoy", ""), ns("acmeb-default", "acmeb"), ns("acmeb-decoy", "acme"),
		ns("default", ""), ns("kube-system", ""), ns("acme", "acme"),
	)
	names := func(c *Client) []string {
		got, err := c.TenantNamespaces(t.Context(), translate.MustTenant("acme"))
		require.NoError(t, err)
		var out []string
		for _, n := range got {
			out = append(out, n.Name)
		}
		return out
	}
	assert.ElementsMatch(t, []string{"acme-default", "acme-web"}, names(&Client{Client: &upstream.Client{Kube: kube}}))

	// From an index (the proxy's): no LIST upstream, the same filter; an
	// index that cannot answer falls back to the LIST.
	indexed := []corev1.Namespace{*ns("acme-default", "acme"), *ns("acme-indexed", "acme"), *ns("acme-decoy", "beta"), *ns("stray", "acme")}
	kube.ClearActions()
	c := &Client{Client: &upstream.Client{Kube: kube, Namespaces: func(_ context.Context, tn translate.Tenant) ([]corev1.Namespace, bool) {
		assert.Equal(t, "acme", tn.Name())
		return indexed, true
	}}}
	assert.ElementsMatch(t, []string{"acme-default", "acme-indexed"}, names(c))
	assert.Empty(t, kube.Actions(), "the index answered, yet the upstream was asked")
	c.Namespaces = func(context.Context, translate.Tenant) ([]corev1.Namespace, bool) { return nil, false }
	assert.ElementsMatch(t, []string{"acme-default", "acme-web"}, names(c))
	assert.NotEmpty(t, kube.Actions())
}
