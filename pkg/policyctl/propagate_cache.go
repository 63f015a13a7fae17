package policyctl

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// PolicyCache answers the reads of a policy reconcile from informers (the
// server's policy loop) instead of the upstream. Each object func returns
// the object named PolicyObjectName of namespace ns, or a NotFound error
// (apierrors) when it holds none.
type PolicyCache struct {
	// Tenant returns a tenant's record.
	Tenant func(name string) (*tenantapi.Tenant, error)
	// Namespaces returns the namespaces labeled for tenant t (of which
	// those named with t's prefix count, as upstream).
	Namespaces func(t translate.Tenant) ([]corev1.Namespace, error)
	// ResourceQuota, LimitRange and NetworkPolicy return a namespace's
	// policy objects.
	ResourceQuota func(ns string) (*corev1.ResourceQuota, error)
	LimitRange    func(ns string) (*corev1.LimitRange, error)
	NetworkPolicy func(ns string) (*networkingv1.NetworkPolicy, error)
}

// errPolicyDrift is what a dry reconcile (policyIO with a cache) returns at
// the first write it would make.
var errPolicyDrift = errors.New("the policy objects drifted")

// ErrPolicyStillDrifted is what ReconcilePolicyObjectsOnDrift returns when,
// after a reconcile upstream, the cache still differs from what the policy
// implies: the cache has not seen the writes yet, or the reconcile read
// something the cache does not hold yet (a namespace the namespace index
// has not seen). The caller retries later, with backoff: no event may come
// to trigger it.
var ErrPolicyStillDrifted = errors.New("the policy objects still differ from the cache after a reconcile")

// policyIO is where a policy reconcile reads the policy objects and what
// becomes of the writes it decides: with cache nil, reads are GETs and
// writes are made upstream; with a cache, reads come from it and the
// first write is errPolicyDrift instead (a dry run, which takes no lock).
// Both run the same decisions (reconcile), so the dry run reports drift
// exactly where the upstream reconcile, reading the same objects, would
// write.
type policyIO struct {
	c     *Client
	cache *PolicyCache
}

func (io policyIO) resourceQuota(ctx context.Context, ns string) (*corev1.ResourceQuota, error) {
	if io.cache != nil {
		return io.cache.ResourceQuota(ns)
	}
	return io.c.Kube.CoreV1().ResourceQuotas(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
}

// apply applies objs upstream, or, in a dry run, reports drift if there is
// any.
func (io policyIO) apply(ctx context.Context, objs []runtime.Object) error {
	if io.cache == nil {
		return io.c.applyBounded(ctx, objs)
	}
	if len(objs) > 0 {
		return errPolicyDrift
	}
	return nil
}

// replaceSquatter is Client.replaceSquatter, called where a desired policy
// object is missing: in a dry run, drift.
func (io policyIO) replaceSquatter(ctx context.Context, kind, ns string) error {
	if io.cache != nil {
		return errPolicyDrift
	}
	return io.c.replaceSquatter(ctx, kind, ns)
}

// ReconcilePolicyObjectsOnDrift reconciles tenant's policy objects
// (ReconcilePolicyObjects) only when a dry run of the reconcile on cache
// finds something to write, or cannot tell, and still does after the
// tenant's lock is taken.
//
// The dry run sends nothing upstream and takes no lock, so a loop that
// reconciles every tenant at its start, and a tenant at every event of its
// namespaces and policy objects, costs the upstream nothing where nothing
// drifted, and does not hold the tenant's lock (for which a proxy making
// one of the tenant's namespaces waits) while it reads every namespace of
// the tenant. A cache that is behind can only delay a reconcile: every
// change of what it holds is an event the loop reconciles again at.
func (c *Client) ReconcilePolicyObjectsOnDrift(ctx context.Context, tenant string, cache *PolicyCache) error {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return err
	}
	if err := c.dryReconcilePolicyObjects(ctx, t, cache); err == nil {
		klog.V(3).InfoS("policy objects in sync", "tenant", tenant)
		return nil
	} else if !errors.Is(err, errPolicyDrift) {
		klog.V(2).InfoS("policy dry run could not tell; reconciling upstream", "tenant", tenant, "err", err)
	}
	if err := c.reconcilePolicyObjects(ctx, tenant, "", cache); err != nil {
		return err
	}
	err = c.dryReconcilePolicyObjects(ctx, t, cache)
	if errors.Is(err, errPolicyDrift) {
		return fmt.Errorf("tenant %s: %w", tenant, ErrPolicyStillDrifted)
	}
	return err
}

// dryReconcilePolicyObjects is reconcilePolicyObjects on cache, as a dry
// run: nil when nothing drifted.
func (c *Client) dryReconcilePolicyObjects(ctx context.Context, t translate.Tenant, cache *PolicyCache) error {
	rec, err := cache.Tenant(t.Name())
	if apierrors.IsNotFound(err) {
		return nil // as ReconcilePolicyObjects: no record, nothing to reconcile
	}
	if err != nil {
		return fmt.Errorf("read the record of tenant %s: %w", t, err)
	}
	if rec.DeletionTimestamp != nil {
		return nil
	}
	p, err := tenantapi.EffectivePolicy(rec)
	if err != nil {
		return err
	}
	nss, err := cache.Namespaces(t)
	if err != nil {
		return fmt.Errorf("read the namespaces of tenant %s: %w", t, err)
	}
	io := policyIO{c: c, cache: cache}
	within, err := io.withinLimit(ctx, t, p, upstream.OwnedNamespaces(t, nss)) // propagate_maxns.go
	if err != nil {
		return err
	}
	active, terminating := splitNamespaces(within)
	return io.reconcile(ctx, t, p, active, terminating, "")
}
