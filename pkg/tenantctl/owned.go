package tenantctl

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ownerSelector selects objects labeled as the tenant's. It is never used
// alone: Owned checks the prefix as well.
func ownerSelector(t translate.Tenant) string { return translate.TenantLabel + "=" + t.Name() }

// Owned reports whether an upstream object belongs to tenant t: it carries
// the label TenantLabel=<t> AND its name (for a CustomResourceDefinition, its
// spec.group) starts with "<t>-".
func Owned(t translate.Tenant, u *unstructured.Unstructured) bool {
	if u.GetLabels()[translate.TenantLabel] != t.Name() {
		return false
	}
	if u.GroupVersionKind().GroupKind() == (schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}) {
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		return t.Owns(group)
	}
	return t.Owns(u.GetName())
}

// tenantNamespaces lists the tenant's namespaces (label and prefix).
func (c *Client) tenantNamespaces(ctx context.Context, t translate.Tenant) ([]corev1.Namespace, error) {
	return c.tenantNamespacesFrom(ctx, t, true)
}

// tenantNamespacesFrom is tenantNamespaces; with indexed false it always
// lists upstream (a count that admits a create must be exact: an index
// may be behind writes made elsewhere).
func (c *Client) tenantNamespacesFrom(ctx context.Context, t translate.Tenant, indexed bool) ([]corev1.Namespace, error) {
	var items []corev1.Namespace
	ok := false
	if indexed {
		items, ok = c.indexedNamespaces(ctx, t)
	}
	if !ok {
		list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: ownerSelector(t)})
		if err != nil {
			return nil, fmt.Errorf("list namespaces of tenant %q: %w", t, err)
		}
		items = list.Items
	}
	return ownedNamespaces(t, items), nil
}

// ownedNamespaces keeps the namespaces of items that are t's: labeled for
// t and named with its prefix.
func ownedNamespaces(t translate.Tenant, items []corev1.Namespace) []corev1.Namespace {
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

// skipSweep are cluster-scoped resources the sweep leaves alone: namespaces
// are deleted on their own, kubectl-zoo's own objects by exact name.
var skipSweep = sets.New(
	translate.KindResource("", "Namespace"),
	schema.GroupResource{Group: translate.APIGroup, Resource: tenantapi.TenantResource},
)

// sweepClusterScoped deletes the tenant's objects of every cluster-scoped
// resource the server lists and deletes (found by discovery, so tenant-owned
// kinds added later are covered too).
func (c *Client) sweepClusterScoped(ctx context.Context, t translate.Tenant, progress func(string, ...any)) ([]string, error) {
	lists, err := c.Kube.Discovery().ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discover the cluster's resources: %w", err)
	}
	lists = discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "delete"}}, lists)
	var deleted []string
	var errs []error
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			gvr := gv.WithResource(r.Name)
			if r.Namespaced || skipSweep.Has(gvr.GroupResource()) {
				continue
			}
			items, err := c.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: ownerSelector(t)})
			if err != nil {
				if !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
					errs = append(errs, fmt.Errorf("list %s of tenant %q: %w", gvr.GroupResource(), t, err))
				}
				continue
			}
			for i := range items.Items {
				item := &items.Items[i]
				if item.GetKind() == "" {
					item.SetGroupVersionKind(gv.WithKind(r.Kind))
				}
				if !Owned(t, item) {
					continue
				}
				uid := item.GetUID()
				err := c.Dynamic.Resource(gvr).Delete(ctx, item.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
				if err != nil && !apierrors.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("delete %s %s: %w", gvr.GroupResource(), item.GetName(), err))
					continue
				}
				name := gvr.GroupResource().String() + "/" + item.GetName()
				deleted = append(deleted, name)
				progress("%s deleted", name)
			}
		}
	}
	slices.Sort(deleted)
	return deleted, errors.Join(errs...)
}

// deleteExact deletes one of kubectl-zoo's per-tenant objects by its exact
// namespace ("" when cluster-scoped) and name, after checking it is labeled
// as the tenant's.
func (c *Client) deleteExact(ctx context.Context, kind, namespace, name string, t translate.Tenant) (bool, error) {
	return c.deleteExactLabeled(ctx, kind, namespace, name, translate.TenantLabel, t.Name())
}

// deleteExactLabeled is deleteExact for an object labeled key=value.
func (c *Client) deleteExactLabeled(ctx context.Context, kind, namespace, name, key, value string) (bool, error) {
	gvr, ok := map[string]schema.GroupVersionResource{
		"clusterrole":        rbacv1.SchemeGroupVersion.WithResource(translate.ResourceOf(rbacv1.GroupName, "ClusterRole")),
		"clusterrolebinding": rbacv1.SchemeGroupVersion.WithResource(translate.ResourceOf(rbacv1.GroupName, "ClusterRoleBinding")),
		"rolebinding":        rbacv1.SchemeGroupVersion.WithResource(translate.ResourceOf(rbacv1.GroupName, "RoleBinding")),
	}[kind]
	if !ok {
		return false, fmt.Errorf("deleteExact: unknown kind %q", kind)
	}
	u, err := c.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s %s: %w", kind, name, err)
	}
	if u.GetLabels()[key] != value {
		return false, nil
	}
	uid := u.GetUID()
	err = c.Dynamic.Resource(gvr).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("delete %s %s: %w", kind, name, err)
	}
	return true, nil
}
