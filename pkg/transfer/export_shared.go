package transfer

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// sharedOwned reads the tenant's own objects of a shared kind (a
// StorageClass, a PriorityClass of its own). The view shows them unprefixed
// among the cluster's own objects, and alike, so which ones are the
// tenant's is read upstream with the caller's credential (TenantLabel, names
// only); each is then read through the view, by the name the translator
// gives it (Tenant.TenantClusterName), as the tenant sees it.
func sharedOwned(ctx context.Context, upstream dynamic.Interface, view dynamic.ResourceInterface, gvr schema.GroupVersionResource,
	t translate.Tenant) ([]*unstructured.Unstructured, error) {
	owned, err := listAll(ctx, upstream.Resource(gvr), translate.TenantLabel+"="+t.Name())
	if err != nil {
		return nil, fmt.Errorf("which %s are the tenant's: %w", gvr.GroupResource(), err)
	}
	var out []*unstructured.Unstructured
	for _, item := range owned {
		local, ok := t.TenantClusterName(item.GetName())
		if !ok {
			continue
		}
		obj, err := view.Get(ctx, local, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}
