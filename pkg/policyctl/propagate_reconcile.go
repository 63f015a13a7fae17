package policyctl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// policyHashAnnotation holds a hash of the spec kubectl-zoo last applied to
// a LimitRange or NetworkPolicy of a policy, so that an unchanged object is
// not written again (the API server defaults fields of both, so their
// stored spec is not the applied one).
const policyHashAnnotation = translate.APIGroup + "/policy-hash"

// applyLimit bounds the writes of one reconcile in flight at once.
const applyLimit = 8

// PolicySelector selects the objects a tenant's policy implies.
func PolicySelector(t translate.Tenant) string {
	return labels.SelectorFromSet(labels.Set{translate.TenantLabel: t.Name(), translate.PropagatedFromLabel: translate.PropagatedFromPolicy}).String()
}

// ReconcilePolicyObjects makes the objects tenant's effective policy implies
// exist, as implied, in every namespace of the tenant, and deletes those it
// no longer implies: a ResourceQuota holding the namespace's share of the
// tenant-wide quota (always, empty without a quota; see SplitQuota and
// docs/security.md, "Policies"), a container LimitRange, and the
// NetworkPolicy of network isolation. A tenant that has no record (or is
// being deleted) has nothing reconciled. It holds the tenant's policy lock
// (propagate_lock.go) throughout.
func (c *Client) ReconcilePolicyObjects(ctx context.Context, tenant string) error {
	return c.reconcilePolicyObjects(ctx, tenant, "", nil)
}

// ReconcileNamespacePolicyObjects makes the policy objects of ns, a
// namespace tenant has just created: its LimitRange and NetworkPolicy, and
// its ResourceQuota — an empty one without a quota, else its share, which
// moves every namespace's (the whole split is reconciled). What it reads
// and writes is the new namespace's only, however many the tenant has,
// unless the tenant has a quota.
func (c *Client) ReconcileNamespacePolicyObjects(ctx context.Context, tenant, ns string) error {
	return c.reconcilePolicyObjects(ctx, tenant, ns, nil)
}

// reconcilePolicyObjects is ReconcilePolicyObjects, or, with only set, the
// part of it that concerns the new namespace only. With recheck set, it
// first repeats the dry run on recheck once it holds the lock: what it
// waited for (a proxy making a namespace's objects) may have been the
// drift.
func (c *Client) reconcilePolicyObjects(ctx context.Context, tenant, only string, recheck *PolicyCache) error {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return err
	}
	// Read before the lock too: a tenant without a record takes no lock.
	if _, ok, err := c.livePolicy(ctx, t); !ok || err != nil {
		return err
	}
	ctx, unlock, err := c.lockPolicy(ctx, t)
	if err != nil {
		return err
	}
	defer unlock()
	// And again under it: the wait may have been for `policy set`
	// storing another policy, whose split a stale one must not undo.
	p, ok, err := c.livePolicy(ctx, t)
	if !ok || err != nil {
		return err
	}
	if recheck != nil && c.dryReconcilePolicyObjects(ctx, t, recheck) == nil {
		return nil
	}
	io := policyIO{c: c}
	active, terminating, err := io.namespaces(ctx, t, p, only)
	if err != nil {
		return err
	}
	return io.reconcile(ctx, t, p, active, terminating, only)
}

// livePolicy reads tenant t's record and returns its effective policy; ok
// is false when there is no record or it is being deleted (nothing to
// reconcile).
func (c *Client) livePolicy(ctx context.Context, t translate.Tenant) (policy.Policy, bool, error) {
	rec, err := c.ReadTenant(ctx, t.Name())
	if apierrors.IsNotFound(err) {
		return policy.Policy{}, false, nil
	}
	if err != nil {
		return policy.Policy{}, false, err
	}
	if rec.DeletionTimestamp != nil {
		return policy.Policy{}, false, nil
	}
	p, err := tenantapi.EffectivePolicy(rec) // policy.go
	return p, err == nil, err
}

// splitNamespaces sorts a tenant's namespaces into the active ones (sorted)
// and those being deleted.
func splitNamespaces(nss []corev1.Namespace) (active []string, terminating map[string]bool) {
	terminating = map[string]bool{}
	for _, ns := range nss {
		if ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating {
			terminating[ns.Name] = true
		} else {
			active = append(active, ns.Name)
		}
	}
	slices.Sort(active)
	return active, terminating
}

// reconcile is the work of reconcilePolicyObjects once the namespaces are
// known: the LimitRanges and NetworkPolicies of active (of only, when set),
// then the quota's split over active and terminating. The ResourceQuota
// comes last: until it exists a namespace admits no create
// (zoo-tenant-policy-objects, admissionrules/gate.go), so its first object finds
// the LimitRange and NetworkPolicy in force. Where those failed, a
// namespace without a ResourceQuota gets none (it stays gated) and the
// others' split is reconciled all the same.
func (io policyIO) reconcile(ctx context.Context, t translate.Tenant, p policy.Policy, active []string, terminating map[string]bool, only string) error {
	kindsIn := active
	if only != "" {
		kindsIn = []string{only}
	}
	var errs []error
	for _, k := range []policyKind{limitRangeKind, networkPolicyKind} {
		if err := io.reconcileKind(ctx, t, p, kindsIn, k); err != nil {
			if io.cache != nil { // a dry run stops at the first drift
				return err
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		ready, err := io.readyForQuota(ctx, t, p, active)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		active = ready
	}
	return errors.Join(append(errs, io.reconcileQuota(ctx, t, p, active, terminating))...)
}

// reconcileQuota rebalances the split of quota q among the active
// namespaces: first every namespace whose share shrinks (or that has no
// ResourceQuota yet, which starts at zero) is lowered, then, from a fresh
// read of what each namespace holds and uses, the others are raised out of
// what q leaves. At every moment Σ max(hard, used) ≤ q. Each quota also
// carries the policy's ingress hosts (PolicyResourceQuota); one that
// carries others is rewritten with the lowered ones.
func (io policyIO) reconcileQuota(ctx context.Context, t translate.Tenant, p policy.Policy, active []string, terminating map[string]bool) error {
	q, hosts := p.Quota, strings.Join(p.IngressHosts, ",")
	shares, err := io.quotaShares(ctx, t, active, terminating)
	if err != nil {
		return err
	}
	want := SplitQuota(q, shares)
	var lower []runtime.Object
	for _, s := range shares {
		if s.Fixed {
			continue
		}
		if s.Hard == nil {
			if err := io.replaceSquatter(ctx, "ResourceQuota", s.Namespace); err != nil {
				return err
			}
		}
		h := lowered(s.Hard, want[s.Namespace])
		if s.Hard == nil || !sameList(h, s.Hard) || s.Hosts != hosts {
			lower = append(lower, platformobj.PolicyResourceQuota(t, s.Namespace, h, p.IngressHosts))
		}
	}
	if err := io.apply(ctx, lower); err != nil {
		return err
	}
	// The raise counts what the lowered quotas report used: only once the
	// quota controller has brought them into force (the gate opens) does
	// their status count a resource the quota has just gained.
	if err := io.waitAdmits(ctx, lower); err != nil {
		return err
	}
	if len(q) == 0 {
		return nil
	}
	if shares, err = io.quotaShares(ctx, t, active, terminating); err != nil {
		return err
	}
	var raise []runtime.Object
	for ns, hard := range raised(q, shares, want) {
		raise = append(raise, platformobj.PolicyResourceQuota(t, ns, hard, p.IngressHosts))
	}
	if err := io.apply(ctx, raise); err != nil {
		return err
	}
	return io.waitAdmits(ctx, raise)
}

// waitAdmits waits until the namespaces of the quotas written admit creates
// again (Client.waitAdmits); a dry run writes nothing and waits for
// nothing.
func (io policyIO) waitAdmits(ctx context.Context, written []runtime.Object) error {
	if io.cache != nil || len(written) == 0 {
		return nil
	}
	var namespaces []string
	for _, o := range written {
		if m, ok := o.(metav1.Object); ok {
			namespaces = append(namespaces, m.GetNamespace())
		}
	}
	return io.c.waitAdmits(ctx, namespaces) // propagate_gate.go
}

// quotaShares reads the policy ResourceQuota of each namespace; a
// terminating namespace (which no longer admits creates) keeps what it
// holds. Namespaces without one, or with one that is not sound
// (soundQuota), have a nil Hard.
func (io policyIO) quotaShares(ctx context.Context, t translate.Tenant, active []string, terminating map[string]bool) ([]QuotaShare, error) {
	namespaces := slices.Concat(active, slices.Sorted(maps.Keys(terminating)))
	byNS, err := policyObjectsIn(ctx, t, namespaces, io.resourceQuota)
	if err != nil {
		return nil, fmt.Errorf("read the policy ResourceQuotas of tenant %s: %w", t, err)
	}
	var shares []QuotaShare
	for _, ns := range active {
		s := QuotaShare{Namespace: ns}
		if rq, ok := byNS[ns]; ok && soundQuota(rq) { // else replaced, from zero
			s.Hard, s.Used, s.Hosts = rq.Spec.Hard, rq.Status.Used, rq.Annotations[translate.IngressHostsAnnotation]
			if s.Hard == nil {
				s.Hard = corev1.ResourceList{}
			}
		}
		shares = append(shares, s)
	}
	for ns := range terminating {
		if rq, ok := byNS[ns]; ok {
			shares = append(shares, QuotaShare{Namespace: ns, Hard: rq.Spec.Hard, Used: rq.Status.Used, Fixed: true})
		}
	}
	return shares, nil
}

// sameList reports whether a and b hold the same quantities.
func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

// specHash is the hash of what kubectl-zoo applies as an object's spec.
func specHash(spec any) (string, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("encode a policy object: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8]), nil
}

// applyBounded applies objs, at most applyLimit at once, and returns every
// failure joined. One refused apply does not cancel the others: a tenant
// whose own quota refuses the policy's ResourceQuota in one namespace (a
// quota of resourcequotas, which Kubernetes' conformance tests use and
// tenants may set) leaves that namespace without one, so gated, and must
// not hold back the lowering of every other namespace's share.
func (c *Client) applyBounded(ctx context.Context, objs []runtime.Object) error {
	var g errgroup.Group
	g.SetLimit(applyLimit)
	errs := make([]error, len(objs))
	for i, obj := range objs {
		g.Go(func() error {
			_, errs[i] = c.Apply(ctx, obj, false)
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}
