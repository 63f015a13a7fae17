package upstream

import (
	"context"
	"fmt"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantRecord reads tenant's record; nil (and no error) when it has none.
func (c *Client) TenantRecord(ctx context.Context, tenant string) (*tenantapi.Tenant, error) {
	rec, err := c.ReadTenant(ctx, tenant)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the record of tenant %s: %w", tenant, err)
	}
	return rec, nil
}

// ReadTenant reads a tenant record; the API's error (NotFound) when it has
// none.
func (c *Client) ReadTenant(ctx context.Context, name string) (*tenantapi.Tenant, error) {
	u, err := c.Dynamic.Resource(tenantapi.TenantGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return tenantapi.TenantFromUnstructured(u)
}
