package tenantctl

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// waitStandardRoles waits until the tenant's aggregated standard roles
// (TenantClusterRoles) hold the rules of their bases, so that a binding to
// "admin" made right after create grants what it says. Create writes them
// with those rules (SettleAggregation), so this normally reads each once;
// it still waits for the cluster's aggregation controller should the roles
// have been written otherwise.
func (c *Client) waitStandardRoles(ctx context.Context, t translate.Tenant, roles []*rbacv1.ClusterRole) error {
	byName := map[string]*rbacv1.ClusterRole{}
	for _, r := range roles {
		byName[r.Name] = r
	}
	for _, name := range tenantapi.StandardClusterRoles {
		base, ok := byName[t.Prefix()+platformobj.AggregateBaseClusterRole(name)]
		if !ok {
			continue // cluster-admin
		}
		if err := c.WaitAggregated(ctx, t.Prefix()+name, base.Name, base.Rules); err != nil {
			return err
		}
	}
	return nil
}
