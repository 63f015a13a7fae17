package tenantctl

import (
	"time"

	"context"
	"encoding/json"
	"fmt"
	"maps"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// relabelParallelism bounds the namespace patches ReconcilePolicy sends at
// once.
const relabelParallelism = 8

// ReconcilePolicy brings everything upstream that a tenant's policy implies
// in line with its record (EffectivePolicy): the grants admission reads
// (the Pod Security level of the tenant's MembershipRoleBinding, the
// PriorityClasses of its priority grant, pkg/policyctl/priority.go), then the Pod
// Security labels of EVERY namespace of the tenant, then the policy objects
// of every namespace (ReconcilePolicyObjects), then the mark of a tenant at
// its namespace limit. The grants come first,
// so that a namespace the tenant creates while the labels change already
// has to carry the new level. It returns once the API server enforces the
// new grants. It is safe to run again.
func (c *Client) ReconcilePolicy(ctx context.Context, tenant string) error {
	rec, err := c.ReadTenant(ctx, tenant)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("tenant %q does not exist", tenant)
	case err != nil:
		return fmt.Errorf("read tenant %q: %w", tenant, err)
	}
	t, err := rec.TenantOf()
	if err != nil {
		return err
	}
	p, err := tenantapi.EffectivePolicy(rec)
	if err != nil {
		return err
	}
	if err := c.applyMembership(ctx, t, rec); err != nil {
		return err
	}
	if err := c.policy().ApplyPolicyGrants(ctx, t, p); err != nil { // pkg/policyctl/registry_grant.go
		return err
	}
	if len(rec.Spec.Admins) > 0 {
		if err := c.waitEnforced(ctx, t, rec.Spec.Admins[0], p.PodSecurity); err != nil {
			return err
		}
	}
	if err := c.policy().WaitPolicyGrants(ctx, t, p); err != nil {
		return err
	}
	if err := c.relabelNamespaces(ctx, t, p.PodSecurity); err != nil {
		return err
	}
	if err := c.policy().ReconcilePolicyObjects(ctx, tenant); err != nil { // pkg/policyctl/propagate_reconcile.go
		return err
	}
	// The namespace limit's mark (pkg/policyctl/maxns.go); a mark lifted is waited
	// for, as the grants are.
	n, err := c.policy().CountNamespaces(ctx, tenant)
	if err != nil {
		return err
	}
	lifted, err := c.policy().SetNamespaceLimitReached(ctx, tenant, n)
	if err != nil || !lifted {
		return err
	}
	return c.policy().WaitNamespaceLimitLifted(ctx, tenant, time.Minute)
}

// relabelNamespaces sets the Pod Security labels (enforce, warn, audit) of
// every namespace of the tenant to level: exactly level, also where the
// tenant had chosen a stricter one, so that a level the platform loosens is
// looser everywhere.
func (c *Client) relabelNamespaces(ctx context.Context, t translate.Tenant, level string) error {
	namespaces, err := c.TenantNamespaces(ctx, t)
	if err != nil {
		return err
	}
	want := translate.PodSecurityLabels(level)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": want}})
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(relabelParallelism)
	for _, ns := range namespaces {
		if ns.DeletionTimestamp != nil || hasLabels(ns, want) {
			continue
		}
		g.Go(func() error {
			_, err := c.Kube.CoreV1().Namespaces().Patch(gctx, ns.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: policyctl.PolicyFieldManager})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("label namespace %s with Pod Security level %s: %w", ns.Name, level, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// hasLabels reports whether every label of want is on ns with its value.
func hasLabels(ns corev1.Namespace, want map[string]string) bool {
	got := maps.Clone(ns.Labels)
	maps.DeleteFunc(got, func(k, _ string) bool { _, ok := want[k]; return !ok })
	return maps.Equal(got, want)
}

// SetTenantPolicy is `kubectl zoo policy set`: it changes the stored policy
// (ChangePolicy) and then brings the tenant's upstream objects in line
// with it (ReconcilePolicy). Running it again with the same flags is safe,
// and finishes what an interrupted run left.
func (c *Client) SetTenantPolicy(ctx context.Context, tenant string, change policy.Change) (policy.Policy, error) {
	if err := c.CheckInstalled(ctx); err != nil {
		return policy.Policy{}, err
	}
	stored, err := c.policy().ChangePolicy(ctx, tenant, change.Apply)
	if err != nil {
		return stored, err
	}
	if err := c.ReconcilePolicy(ctx, tenant); err != nil {
		return stored, fmt.Errorf("the policy of tenant %q is stored but not yet in force: %w (run the command again)", tenant, err)
	}
	return stored, nil
}
