package policyctl

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

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The split of a tenant-wide quota is rebalanced by one writer at a time:
// two rebalances that each raise a namespace out of the same slack would
// promise it twice. Every writer (`policy set`, `tenant create`, a proxy
// making a namespace's objects, each replica of the server's reconcile
// loop) first takes the tenant's Lease in the upstream kube-system, which
// exists in every cluster and where tenants may write nothing.
const (
	LockNamespace = metav1.NamespaceSystem
	// policyLockTTL is how long a Lease held by a writer that died blocks
	// the others.
	policyLockTTL = 30 * time.Second
	// policyLockWait bounds the wait for the Lease.
	policyLockWait = 45 * time.Second
)

// PolicyLockName is the name of tenant t's Lease in kube-system.
func PolicyLockName(t translate.Tenant) string { return "zoo-policy-" + t.Name() }

// lockPolicy takes tenant t's Lease, waiting while another live writer
// holds it, and returns the context to write under and the release
// (LockLease).
func (c *Client) lockPolicy(ctx context.Context, t translate.Tenant) (context.Context, func(), error) {
	return c.LockLease(ctx, t, PolicyLockName(t), "policy")
}

// LockLease takes the Lease name of tenant t in kube-system (what it
// guards: what), waiting while another live writer holds it. It renews the
// Lease every third of its TTL while held, so that work longer than the
// TTL keeps it, and returns a context derived from ctx that is cancelled
// when the Lease is lost (another writer took it, or no renewal succeeded
// for a whole TTL): the holder writes under that context, so it stops
// before two writers interleave. The release stops the renewal and frees
// the Lease.
func (c *Client) LockLease(ctx context.Context, t translate.Tenant, name, what string) (context.Context, func(), error) {
	leases := c.Kube.CoordinationV1().Leases(LockNamespace)
	holder := string(uuid.NewUUID())
	var held *coordinationv1.Lease
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, policyLockWait, true, func(ctx context.Context) (bool, error) {
		now := metav1.NewMicroTime(time.Now())
		spec := coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: ptr.To(int32(policyLockTTL / time.Second)),
			AcquireTime: &now, RenewTime: &now}
		cur, err := leases.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tenantapi.TenantManagedLabels(t)}, Spec: spec}
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
		return nil, nil, fmt.Errorf("take the %s lock of tenant %s (Lease %s/%s): %w", what, t, LockNamespace, name, err)
	}
	r := &leaseRenewer{leases: leases, held: held, ttl: policyLockTTL,
		lost: fmt.Errorf("lost the %s lock of tenant %s (Lease %s/%s) to another writer", what, t, LockNamespace, name)}
	lockCtx, cancel := context.WithCancelCause(ctx)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		r.run(lockCtx, cancel, stop)
	}()
	return lockCtx, func() {
		close(stop)
		<-stopped
		cancel(nil)
		// Free it for the next writer; if this fails, it expires.
		r.held.Spec.HolderIdentity = ptr.To("")
		ctx, cancelUpdate := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancelUpdate()
		_, _ = leases.Update(ctx, r.held, metav1.UpdateOptions{})
	}, nil
}

// leaseClient is the part of the Leases client a renewer uses.
type leaseClient interface {
	Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error)
}

// leaseRenewer renews a held Lease until stopped, and cancels the holder's
// context with lost when the Lease is no longer its own.
type leaseRenewer struct {
	leases leaseClient
	held   *coordinationv1.Lease
	ttl    time.Duration
	lost   error
}

// run renews every third of the TTL. A conflict or a missing Lease means
// another writer took it; other errors are retried at the next tick, until
// a whole TTL has passed since the last renewal, when others may take it.
func (r *leaseRenewer) run(ctx context.Context, cancel context.CancelCauseFunc, stop <-chan struct{}) {
	tick := time.NewTicker(r.ttl / 3)
	defer tick.Stop()
	renewed := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		next := r.held.DeepCopy()
		next.Spec.RenewTime = ptr.To(metav1.NewMicroTime(time.Now()))
		updated, err := r.leases.Update(ctx, next, metav1.UpdateOptions{})
		switch {
		case err == nil:
			r.held, renewed = updated, time.Now()
		case apierrors.IsConflict(err), apierrors.IsNotFound(err), time.Since(renewed) >= r.ttl:
			cancel(r.lost)
			return
		}
	}
}
