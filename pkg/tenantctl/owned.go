package tenantctl

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

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
			items, err := c.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: upstream.OwnerSelector(t)})
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
