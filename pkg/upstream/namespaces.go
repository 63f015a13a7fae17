package upstream

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// OwnerSelector selects objects labeled as the tenant's. It is never used
// alone: Owned checks the prefix as well.
func OwnerSelector(t translate.Tenant) string { return translate.TenantLabel + "=" + t.Name() }

// TenantNamespaces lists the tenant's namespaces (label and prefix).
func (c *Client) TenantNamespaces(ctx context.Context, t translate.Tenant) ([]corev1.Namespace, error) {
	return c.TenantNamespacesFrom(ctx, t, true)
}

// TenantNamespacesFrom is TenantNamespaces; with indexed false it always
// lists upstream (a count that admits a create must be exact: an index
// may be behind writes made elsewhere).
func (c *Client) TenantNamespacesFrom(ctx context.Context, t translate.Tenant, indexed bool) ([]corev1.Namespace, error) {
	var items []corev1.Namespace
	ok := false
	if indexed {
		items, ok = c.indexedNamespaces(ctx, t)
	}
	if !ok {
		list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: OwnerSelector(t)})
		if err != nil {
			return nil, fmt.Errorf("list namespaces of tenant %q: %w", t, err)
		}
		items = list.Items
	}
	return OwnedNamespaces(t, items), nil
}

// OwnedNamespaces keeps the namespaces of items that are t's: labeled for
// t and named with its prefix.
func OwnedNamespaces(t translate.Tenant, items []corev1.Namespace) []corev1.Namespace {
	var out []corev1.Namespace
	for _, ns := range items {
		if ns.Labels[translate.TenantLabel] == t.Name() && t.Owns(ns.Name) {
			out = append(out, ns)
		}
	}
	return out
}

// indexedNamespaces asks c.Namespaces, if set.
func (c *Client) indexedNamespaces(ctx context.Context, t translate.Tenant) ([]corev1.Namespace, bool) {
	if c.Namespaces == nil {
		return nil, false
	}
	return c.Namespaces(ctx, t)
}
