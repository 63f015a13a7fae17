package tenantctl

import (
	"context"
	"fmt"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TenantRecord reads tenant's record; nil (and no error) when it has none.
func (c *Client) TenantRecord(ctx context.Context, tenant string) (*tenantapi.Tenant, error) {
	rec, err := c.getTenant(ctx, tenant)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the record of tenant %s: %w", tenant, err)
	}
	return rec, nil
}
