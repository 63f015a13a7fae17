package tenantctl

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// checkGroupPrefix refuses a tenant name that prefixes an API group the
// cluster serves that is not one of that tenant's own CRD groups (a
// re-run of create finds the tenant's own).
func (c *Client) checkGroupPrefix(ctx context.Context, t translate.Tenant) error {
	groups, err := c.Kube.Discovery().ServerGroups()
	if err != nil {
		return fmt.Errorf("list the cluster's API groups: %w", err)
	}
	own := map[string]bool{}
	crds, err := c.Dynamic.Resource(upstream.CRDGVR).List(ctx, metav1.ListOptions{LabelSelector: upstream.OwnerSelector(t)})
	if err != nil {
		return fmt.Errorf("list the tenant's CustomResourceDefinitions: %w", err)
	}
	for i := range crds.Items {
		if crd := &crds.Items[i]; Owned(t, crd) {
			group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
			own[group] = true
		}
	}
	for _, g := range groups.Groups {
		if strings.HasPrefix(g.Name, t.Prefix()) && !own[g.Name] {
			return fmt.Errorf("the cluster serves the API group %s, which tenant %q would take for one of its own; pick another tenant name", g.Name, t)
		}
	}
	return nil
}
