package tenantctl

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The split of a tenant-wide quota is rebalanced by one writer at a time:
// two rebalances that each raise a namespace out of the same slack would
// promise it twice. Every writer (`policy set`, `tenant create`, a proxy
// making a namespace's objects, each replica of the server's reconcile
// loop) first takes the tenant's Lease in the upstream kube-system, which
// exists in every cluster and where tenants may write nothing.
const (
	policyLockNamespace = metav1.NamespaceSystem
	// policyLockTTL is how long a Lease held by a writer that died blocks
	// the others.
	policyLockTTL = 30 * time.Second
	// policyLockWait bounds the wait for the Lease.
	policyLockWait = 45 * time.Second
)

// PolicyLockName is the name of tenant t's Lease in kube-system.
func PolicyLockName(t translate.Tenant) string { return "zoo-policy-" + t.Name() }

// lockPolicy takes tenant t's Lease, waiting while another live writer
// holds it, and returns its release.
func (c *Client) lockPolicy(ctx context.Context, t translate.Tenant) (func(), error) {
	return c.lockLease(ctx, t, PolicyLockName(t), "policy")
}

// lockLease takes the Lease name of tenant t in kube-system (what it
// guards: what), waiting while another live writer holds it, and returns
// its release.
func (c *Client) lockLease(ctx context.Context, t translate.Tenant, name, what string) (func(), error) {
	leases := c.Kube.CoordinationV1().Leases(policyLockNamespace)
	holder := string(uuid.NewUUID())
	var held *coordinationv1.Lease
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, policyLockWait, true, func(ctx context.Context) (bool, error) {
		now := metav1.NewMicroTime(time.Now())
		spec := coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: ptr.To(int32(policyLockTTL / time.Second)),
			AcquireTime: &now, RenewTime: &now}
		cur, err := leases.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tenantManagedLabels(t)}, Spec: spec}
			held, err = leases.Create(ctx, l, metav1.CreateOptions{})
		case err != nil:
			return false, err
		case cur.Spec.HolderIdentity != nil && *cur.Spec.HolderIdentity != "" && cur.Spec.RenewTime != nil &&
			cur.Spec.LeaseDurationSeconds != nil &&
			time.Since(cur.Spec.RenewTime.Time) < time.Duration(*cur.Spec.LeaseDurationSeconds)*time.Second:
			return false, nil // held by a live writer
		default:
			cur.Spec = spec
			held, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
		}
		if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) {
			return false, nil // another writer was first
		}
		return err == nil, err
	})
	if err != nil {
		return nil, fmt.Errorf("take the %s lock of tenant %s (Lease %s/%s): %w", what, t, policyLockNamespace, name, err)
	}
	return func() {
		// Free it for the next writer; if this fails, it expires.
		held.Spec.HolderIdentity = ptr.To("")
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, _ = leases.Update(ctx, held, metav1.UpdateOptions{})
	}, nil
}
