package tenantctl

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// UninstallOptions tune Uninstall.
type UninstallOptions struct {
	// Force deletes every tenant (as DeleteTenant, without waiting) instead
	// of refusing while tenants exist.
	Force bool
	// Progress, if set, is told about each step.
	Progress func(format string, args ...any)
}

// Uninstall removes what Install and InstallServer applied. It refuses while tenants exist
// unless opts.Force, which deletes them first: leaving tenants behind without
// the policies that confine them would be worse than either.
func (c *Client) Uninstall(ctx context.Context, opts UninstallOptions) ([]string, error) {
	progress := opts.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	tenants, err := c.tenantNames(ctx)
	if err != nil {
		return nil, err
	}
	if len(tenants) > 0 && !opts.Force {
		return nil, fmt.Errorf("refusing to uninstall: %d tenant(s) exist (%s); delete them first or pass --force to delete them too",
			len(tenants), joinMax(tenants, 5))
	}
	for _, name := range tenants {
		progress("deleting tenant %s", name)
		if _, err := c.DeleteTenant(ctx, name, DeleteOptions{Progress: opts.Progress}); err != nil {
			return nil, fmt.Errorf("delete tenant %s: %w", name, err)
		}
	}
	return c.install().RemoveObjects(ctx, opts.Progress)
}

// tenantNames lists the names of all tenant records; none if not installed.
func (c *Client) tenantNames(ctx context.Context) ([]string, error) {
	list, err := c.Dynamic.Resource(tenantapi.TenantGVR).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.GetName())
	}
	return names, nil
}

// joinMax joins the first n names, and says how many more there are.
func joinMax(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
