package install

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ReconfineTenantAdmission rewrites the match condition that confines every
// tenant's webhook configurations and admission policies upstream
// (translate.TenantMatchCondition) to the one this version writes, and
// returns how many objects it changed. The proxy writes the condition only
// when a tenant writes such an object, so an upgrade (Install) brings the
// objects written by an earlier version up to date: a condition of an
// earlier version may let them reach what this one keeps out of their way
// (kubectl-zoo's own policy objects in the tenant's namespaces). Kinds the
// API server does not serve are skipped.
func (c *Client) ReconfineTenantAdmission(ctx context.Context) (int, error) {
	groups, err := restmapper.GetAPIGroupResources(c.Kube.Discovery())
	if err != nil {
		return 0, fmt.Errorf("discover the API: %w", err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	changed := 0
	var failed []error
	for _, rule := range translate.ReconfinedKinds() {
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: rule.Resource.Group, Kind: rule.Kind})
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return changed, fmt.Errorf("map %s: %w", rule.Kind, err)
		}
		api := c.Dynamic.Resource(mapping.Resource)
		list, err := api.List(ctx, metav1.ListOptions{LabelSelector: translate.TenantLabel})
		if err != nil {
			return changed, fmt.Errorf("list the tenants' %s: %w", mapping.Resource.Resource, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			t, err := translate.NewTenant(obj.GetLabels()[translate.TenantLabel])
			if err != nil {
				continue // not a tenant's
			}
			// One object that fails (a tenant's, so maybe made to) does
			// not keep the others at the earlier condition: all are tried,
			// and the failures reported together.
			again, err := translate.New(t, translate.Options{}).Reconfine(rule.Resource, obj.Object)
			if err == nil && again {
				_, err = api.Update(ctx, obj, metav1.UpdateOptions{FieldManager: tenantapi.FieldManager})
			}
			if err != nil {
				if !apierrors.IsNotFound(err) { // else deleted meanwhile
					failed = append(failed, fmt.Errorf("re-confine %s %s: %w", rule.Kind, obj.GetName(), err))
				}
				continue
			}
			if !again {
				continue
			}
			klog.V(2).InfoS("re-confined a tenant's admission object", "kind", rule.Kind, "name", obj.GetName())
			changed++
		}
	}
	return changed, errors.Join(failed...)
}
