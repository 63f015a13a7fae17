package tenantctl

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// DeleteOptions tune DeleteTenant.
type DeleteOptions struct {
	// Wait makes DeleteTenant return only once the tenant's namespaces are
	// gone (the upstream namespace controller deletes their contents).
	Wait bool
	// Timeout bounds the Wait; 5 minutes if zero.
	Timeout time.Duration
	// Progress, if set, is told about each step.
	Progress func(format string, args ...any)
}

// DeleteResult tells what DeleteTenant deleted.
type DeleteResult struct {
	// Namespaces are the tenant's namespaces it deleted.
	Namespaces []string
	// Objects are the tenant's cluster-scoped objects it deleted, as
	// "kind.group/name".
	Objects []string
}

// DeleteTenant removes everything tenant name owns: its namespaces (and so
// their contents), its cluster-scoped objects (CRDs and so their custom
// resources), its RBAC, the grants of its identities to upstream users
// (AddUserGrant), and its record (which ends its admission checks). An object
// belongs to the tenant only if it carries the label TenantLabel=<name> AND
// its name (for a CRD, its group) starts with "<name>-": never a bare
// prefix, never the label alone. kubectl-zoo's own per-tenant objects are
// deleted by their exact names. It is safe to run again after a failure.
func (c *Client) DeleteTenant(ctx context.Context, name string, opts DeleteOptions) (*DeleteResult, error) {
	t, err := translate.NewTenant(name)
	if err != nil {
		return nil, err
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	if err := c.CheckInstalled(ctx); err != nil {
		return nil, err
	}
	_, err = c.ReadTenant(ctx, name)
	found := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("read tenant %q: %w", name, err)
	}
	res := &DeleteResult{}

	// Revoke the tenant's membership first, so that it cannot make
	// anything new while the rest goes.
	revoked, err := c.revokeMembership(ctx, t, progress) // membership.go
	if err != nil {
		return nil, err
	}
	found = found || revoked
	// Then the upstream users' grants of its identities (pkg/users).
	grants, err := users.New(c.Client).DeleteUserGrants(ctx, t, progress)
	res.Objects = append(res.Objects, grants...)
	if err != nil {
		return res, err
	}

	namespaces, err := c.TenantNamespaces(ctx, t)
	if err != nil {
		return nil, err
	}
	for _, ns := range namespaces {
		if ns.DeletionTimestamp == nil {
			err := c.Kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ns.UID}})
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("delete namespace %s: %w", ns.Name, err)
			}
			progress("namespace/%s deleted", ns.Name)
		}
		res.Namespaces = append(res.Namespaces, ns.Name)
	}

	objects, err := c.sweepClusterScoped(ctx, t, progress)
	res.Objects = append(res.Objects, objects...)
	if err != nil {
		return res, err
	}
	if !found && len(res.Namespaces) == 0 && len(res.Objects) == 0 {
		return nil, fmt.Errorf("tenant %q not found", name)
	}

	if opts.Wait && len(res.Namespaces) > 0 {
		if err := c.waitNamespacesGone(ctx, t, opts.Timeout, progress); err != nil {
			return res, err
		}
	}

	// The record goes last: while it exists, `tenant create` of the same
	// name refuses, so no new tenant meets the old one's terminating
	// namespaces.
	err = c.Dynamic.Resource(tenantapi.TenantGVR).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return res, fmt.Errorf("delete tenant record %q: %w", name, err)
	}
	// The policy and sleep locks (pkg/policyctl/propagate_lock.go, sleep.go) are kept in
	// kube-system.
	for _, lock := range []string{policyctl.PolicyLockName(t), SleepLockName(t)} {
		err = c.Kube.CoordinationV1().Leases(policyctl.LockNamespace).Delete(ctx, lock, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return res, fmt.Errorf("delete the lock %s of tenant %q: %w", lock, name, err)
		}
	}
	slices.Sort(res.Namespaces)
	return res, nil
}

// waitNamespacesGone polls until no namespace of the tenant is left.
func (c *Client) waitNamespacesGone(ctx context.Context, t translate.Tenant, timeout time.Duration, progress func(string, ...any)) error {
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	lastLeft := -1
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		left, err := c.TenantNamespaces(ctx, t)
		if err != nil {
			return false, err
		}
		if len(left) != lastLeft && len(left) > 0 {
			progress("waiting for %d namespace(s) to terminate", len(left))
		}
		lastLeft = len(left)
		return len(left) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("namespaces of tenant %q still terminating after %s (%d left): %w", t, timeout, lastLeft, err)
	}
	return nil
}
