package policyctl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// errOverNamespaceLimit says that a namespace is beyond its tenant's
// namespace limit: it gets no policy objects, so admits no create.
var errOverNamespaceLimit = fmt.Errorf("beyond the tenant's namespace limit")

// withinLimit drops from nss (a tenant's namespaces) those beyond the
// policy's namespace limit, which get no policy objects: without a
// ResourceQuota such a namespace admits no create at all
// (zoo-tenant-policy-objects), whoever made it and however (directly
// upstream before the limit's mark was written, or through two proxies at
// once). So the namespaces that hold anything never outnumber the limit,
// on every path, at the moment of the write; the others are empty until
// deleted, or until a slot frees up.
//
// The slots go first to the standard namespaces, then to those that hold
// a policy ResourceQuota already (a limit lowered below the count is not
// retroactive), then to the others in the order they were made (by name
// on ties). Every reconcile decides under the tenant's policy lock, from
// what it reads upstream, so two cannot give away one slot twice.
func (io policyIO) withinLimit(ctx context.Context, t translate.Tenant, p policy.Policy, nss []corev1.Namespace) ([]corev1.Namespace, error) {
	if p.MaxNamespaces == nil {
		return nss, nil
	}
	names := make([]string, len(nss))
	for i, ns := range nss {
		names[i] = ns.Name
	}
	held, err := policyObjectsIn(ctx, t, names, io.resourceQuota)
	if err != nil {
		return nil, fmt.Errorf("read the policy ResourceQuotas of tenant %s: %w", t, err)
	}
	standard := func(ns string) bool {
		local, _ := t.TenantNamespace(ns)
		return slices.Contains(tenantapi.StandardNamespaces, local)
	}
	slots := int(*p.MaxNamespaces)
	var waiting []corev1.Namespace
	for _, ns := range nss {
		if _, ok := held[ns.Name]; ok || standard(ns.Name) {
			slots--
		} else {
			waiting = append(waiting, ns)
		}
	}
	slices.SortStableFunc(waiting, func(a, b corev1.Namespace) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	over := map[string]bool{}
	for i, ns := range waiting {
		if i >= slots {
			over[ns.Name] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(nss), func(ns corev1.Namespace) bool { return over[ns.Name] }), nil
}

// namespaceOverLimit is the error of a reconcile of namespace ns that the
// tenant's namespace limit leaves without policy objects.
func namespaceOverLimit(t translate.Tenant, ns string, p policy.Policy) error {
	local, _ := t.TenantNamespace(ns)
	return fmt.Errorf("namespace %s is %w (%d): it gets no policy objects and admits no create; delete it, or another namespace", local, errOverNamespaceLimit, *p.MaxNamespaces)
}

// namespaces are the active and terminating namespaces a reconcile of
// tenant t under policy p reads and writes: only alone when set and
// nothing spans the namespaces (no quota to split, no namespace limit),
// else every namespace of the tenant within the limit (withinLimit).
func (io policyIO) namespaces(ctx context.Context, t translate.Tenant, p policy.Policy, only string) ([]string, map[string]bool, error) {
	if only != "" && len(p.Quota) == 0 && p.MaxNamespaces == nil {
		return []string{only}, map[string]bool{}, nil
	}
	// Exact under a limit: a namespace an index has not seen yet must not
	// take a slot it does not know is taken.
	nss, err := io.c.TenantNamespacesFrom(ctx, t, p.MaxNamespaces == nil)
	if err != nil {
		return nil, nil, err
	}
	if nss, err = io.withinLimit(ctx, t, p, nss); err != nil { // propagate_maxns.go
		return nil, nil, err
	}
	active, terminating := splitNamespaces(nss)
	if only != "" && !slices.Contains(active, only) {
		if p.MaxNamespaces != nil {
			return nil, nil, namespaceOverLimit(t, only, p) // propagate_maxns.go
		}
		active = append(active, only) // an index behind the create just made
		slices.Sort(active)
	}
	if only != "" && len(p.Quota) == 0 {
		active = []string{only}
	}
	return active, terminating, nil
}
