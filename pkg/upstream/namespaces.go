package upstream

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nsobjects"
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
// may be behind writes made elsewhere). The index-or-LIST is the one of
// every reconcile of objects in a tenant's namespaces (nsobjects).
func (c *Client) TenantNamespacesFrom(ctx context.Context, t translate.Tenant, indexed bool) ([]corev1.Namespace, error) {
	index := c.Namespaces
	if !indexed {
		index = nil
	}
	items, err := nsobjects.ListNamespaces(ctx, c.Kube, index, t)
	if err != nil {
		return nil, err
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
