package tenantctl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// CreateOptions describe the tenant `tenant create` makes.
type CreateOptions struct {
	// Name is the tenant's name (validated with translate.ValidateTenantName).
	Name string
	// Admins are tenant-local user names; translate.DefaultAdminUser if
	// empty.
	Admins []string
	// DisplayName is optional.
	DisplayName string
}

// CreateResult tells what CreateTenant did.
type CreateResult struct {
	// Tenant is the tenant record as it is now.
	Tenant *tenantapi.Tenant
	// Created is false when the tenant existed already (CreateTenant then
	// reconciled it to opts).
	Created bool
	// Namespaces are the tenant's standard namespaces (upstream names).
	Namespaces []string
}

// ValidateCreateOptions checks opts without talking to the cluster and fills
// in the default admin.
func ValidateCreateOptions(opts *CreateOptions) error {
	if _, err := translate.NewTenant(opts.Name); err != nil {
		return err
	}
	if len(opts.Admins) == 0 {
		opts.Admins = []string{translate.DefaultAdminUser}
	}
	seen := map[string]bool{}
	for _, a := range opts.Admins {
		if a == "" {
			return errors.New("an admin name must not be empty")
		}
		if seen[a] {
			return fmt.Errorf("admin %q is given twice", a)
		}
		seen[a] = true
	}
	return nil
}

// CreateTenant creates the tenant and everything it needs upstream, or, when
// it exists, brings it back in line with opts (so a failed create can simply
// be run again). It refuses, before changing anything, when a name it needs
// is taken by something that is not the tenant's. A new tenant whose create
// fails is rolled back. It returns once admission enforces the tenant's
// boundary, so the tenant can be used at once.
func (c *Client) CreateTenant(ctx context.Context, opts CreateOptions) (*CreateResult, error) {
	if err := ValidateCreateOptions(&opts); err != nil {
		return nil, err
	}
	t := translate.MustTenant(opts.Name)
	if err := c.CheckInstalled(ctx); err != nil {
		return nil, err
	}
	existing, err := c.ReadTenant(ctx, t.Name())
	switch {
	case apierrors.IsNotFound(err):
		existing = nil
	case err != nil:
		return nil, err
	case existing.DeletionTimestamp != nil:
		return nil, fmt.Errorf("tenant %q is being deleted; wait until it is gone", t)
	}
	roles, err := c.preflight(ctx, t)
	if err != nil {
		return nil, err
	}
	tenant := &tenantapi.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: t.Name(), Labels: tenantapi.ManagedLabels()},
		Spec:       tenantapi.TenantSpec{DisplayName: opts.DisplayName, Admins: opts.Admins},
	}
	if existing != nil { // kept until InitialPolicy moves it into spec.policy (reconcile)
		if level, ok := existing.Annotations[translate.PodSecurityLevelAnnotation]; ok {
			tenant.Annotations = map[string]string{translate.PodSecurityLevelAnnotation: level}
		}
	}
	res, err := c.reconcile(ctx, t, tenant, roles, existing == nil)
	if err != nil && existing == nil {
		klog.V(1).InfoS("rolling back failed tenant create", "tenant", t.Name(), "err", err)
		if _, rbErr := c.DeleteTenant(context.WithoutCancel(ctx), t.Name(), DeleteOptions{}); rbErr != nil {
			return nil, fmt.Errorf("create tenant %q: %w (rollback failed too: %v; run `kubectl zoo tenant delete %s`)", t, err, rbErr, t)
		}
		return nil, fmt.Errorf("create tenant %q: %w (rolled back)", t, err)
	}
	if err != nil {
		return nil, fmt.Errorf("create tenant %q: %w (run the command again to resume)", t, err)
	}
	res.Created = existing == nil
	return res, nil
}

// preflight checks that no name the tenant needs is held by something that
// is not the tenant's, and reads the cluster's standard roles.
func (c *Client) preflight(ctx context.Context, t translate.Tenant) (map[string]*rbacv1.ClusterRole, error) {
	var g errgroup.Group
	roles := make([]*rbacv1.ClusterRole, len(tenantapi.StandardClusterRoles))
	for _, local := range tenantapi.StandardNamespaces {
		g.Go(func() error {
			ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, t.Prefix()+local, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("check namespace %s: %w", t.Prefix()+local, err)
			}
			if ns.Labels[translate.TenantLabel] != t.Name() {
				return fmt.Errorf("namespace %s already exists and does not belong to tenant %q; pick another tenant name", ns.Name, t)
			}
			if ns.DeletionTimestamp != nil {
				return fmt.Errorf("namespace %s is still terminating from an earlier delete of tenant %q; try again when it is gone", ns.Name, t)
			}
			return nil
		})
	}
	// Any namespace with the tenant's prefix would fall under the tenant: its
	// ServiceAccounts would be judged (and confined) as the tenant's, and the
	// proxy would show it to the tenant. So the prefix must be free.
	g.Go(func() error {
		list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list namespaces: %w", err)
		}
		for _, ns := range list.Items {
			if t.Owns(ns.Name) && ns.Labels[translate.TenantLabel] != t.Name() {
				return fmt.Errorf("namespace %s already exists and does not belong to tenant %q; pick another tenant name", ns.Name, t)
			}
		}
		return nil
	})
	// An API group with the tenant's prefix would read as one of the
	// tenant's CRD groups (cert-manager.io for a tenant "cert"): the prefix
	// must be free of groups that are not the tenant's own CRDs'.
	g.Go(func() error { return c.checkGroupPrefix(ctx, t) })
	for i, name := range tenantapi.StandardClusterRoles {
		g.Go(func() error {
			for _, own := range []string{name, platformobj.AggregateBaseClusterRole(name)} {
				if own != name && name == "cluster-admin" {
					continue
				}
				cr, err := c.Kube.RbacV1().ClusterRoles().Get(ctx, t.Prefix()+own, metav1.GetOptions{})
				if err == nil && cr.Labels[translate.TenantLabel] != t.Name() {
					return fmt.Errorf("ClusterRole %s already exists and does not belong to tenant %q; pick another tenant name", cr.Name, t)
				}
				if err != nil && !apierrors.IsNotFound(err) {
					return fmt.Errorf("check ClusterRole %s: %w", t.Prefix()+own, err)
				}
			}
			if name == "cluster-admin" {
				return nil
			}
			std, err := c.clusterStandardRole(ctx, name)
			if err != nil {
				return err
			}
			roles[i] = std
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := map[string]*rbacv1.ClusterRole{}
	for i, name := range tenantapi.StandardClusterRoles {
		out[name] = roles[i]
	}
	return out, nil
}

// reconcile applies everything of the tenant in an order that never leaves
// it with rights before its confinement: the record first, with its policy
// (InitialPolicy: the cluster's default policy when created), then
// namespaces and roles, the namespaces' policy objects, the admins'
// RoleBindings, the membership (TenantRBAC), without which IdentityPolicy
// refuses every write of the tenant's zoo: identities, last. The confinement itself needs nothing per tenant: the policies judge
// by identity and labels.
func (c *Client) reconcile(ctx context.Context, t translate.Tenant, tenant *tenantapi.Tenant, roles map[string]*rbacv1.ClusterRole, created bool) (*CreateResult, error) {
	record, err := tenant.ToUnstructured()
	if err != nil {
		return nil, err
	}
	delete(record.Object, "status")
	if _, err := c.Apply(ctx, record, false); err != nil {
		return nil, err
	}
	p, err := c.policy().InitialPolicy(ctx, t.Name(), created) // pkg/policyctl/defaults.go
	if err != nil {
		return nil, err
	}
	if err := tenantapi.SetPolicy(tenant, p); err != nil {
		return nil, err
	}
	delete(tenant.Annotations, translate.PodSecurityLevelAnnotation)
	level := p.PodSecurity
	var first, second []runtime.Object
	var namespaces []string
	for _, local := range tenantapi.StandardNamespaces {
		ns := &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: t.Prefix() + local, Labels: namespaceLabels(t, level)},
		}
		namespaces = append(namespaces, ns.Name)
		first = append(first, ns)
	}
	// The admins' RoleBinding goes into every namespace of the tenant, also
	// those it made itself, so that a change of admins reaches them all.
	owned, err := c.TenantNamespaces(ctx, t)
	if err != nil {
		return nil, err
	}
	targets := slices.Clone(namespaces)
	for _, ns := range owned {
		if ns.DeletionTimestamp == nil && !slices.Contains(targets, ns.Name) {
			targets = append(targets, ns.Name)
		}
	}
	for _, ns := range targets {
		rbs, err := platformobj.NamespaceRBAC(tenant, ns)
		if err != nil {
			return nil, err
		}
		for _, rb := range rbs {
			second = append(second, rb)
		}
	}
	standard := platformobj.TenantClusterRoles(t, func(name string) *rbacv1.ClusterRole { return roles[name] })
	existing, err := c.Kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: upstream.OwnerSelector(t)})
	if err != nil {
		return nil, fmt.Errorf("list the ClusterRoles of tenant %q: %w", t, err)
	}
	platformobj.SettleAggregation(standard, existing.Items) // rbac_aggregate.go
	platformobj.PlainUntilAggregated(t, standard, existing.Items)
	// An aggregated role is written after the roles it aggregates (view,
	// edit, admin: AggregatedStandardRoles), so that when the aggregation
	// controller sees it, it sees them too and computes the rules it
	// already holds.
	byName := map[string]*rbacv1.ClusterRole{}
	for _, cr := range standard {
		if cr.AggregationRule != nil {
			byName[cr.Name] = cr
		} else {
			first = append(first, cr)
		}
	}
	batches := [][]runtime.Object{first}
	for _, name := range platformobj.AggregatedStandardRoles {
		if cr, ok := byName[t.Prefix()+name]; ok {
			batches = append(batches, []runtime.Object{cr})
		}
	}
	for _, batch := range batches {
		if err := c.ApplyParallel(ctx, batch); err != nil {
			return nil, err
		}
	}
	// The policy objects before anything else in the namespaces: until its
	// ResourceQuota exists, a namespace admits no create (admissionrules/gate.go).
	if err := c.policy().ReconcilePolicyObjects(ctx, t.Name()); err != nil { // pkg/policyctl/propagate_reconcile.go
		return nil, err
	}
	if err := c.ApplyParallel(ctx, second); err != nil {
		return nil, err
	}
	if err := c.applyMembership(ctx, t, tenant); err != nil { // membership.go
		return nil, err
	}
	if err := c.policy().ApplyPolicyGrants(ctx, t, p); err != nil { // pkg/policyctl/registry_grant.go
		return nil, err
	}
	if err := c.install().ApplyKubernetesService(ctx, t); err != nil { // pkg/install/apiservice.go
		return nil, err
	}
	if err := c.waitEnforced(ctx, t, tenant.Spec.Admins[0], level); err != nil {
		return nil, err
	}
	if err := c.waitStandardRoles(ctx, t, standard); err != nil {
		return nil, err
	}
	if err := c.setReady(ctx, tenant, int32(len(namespaces))); err != nil {
		return nil, err
	}
	slices.Sort(namespaces)
	return &CreateResult{Tenant: tenant, Namespaces: namespaces}, nil
}

// namespaceLabels are the labels of a standard namespace of the tenant:
// ownership and the platform's Pod Security labels at level.
func namespaceLabels(t translate.Tenant, level string) map[string]string {
	l := tenantapi.TenantManagedLabels(t)
	for k, v := range translate.PodSecurityLabels(level) {
		l[k] = v
	}
	return l
}

// clusterStandardRole reads the cluster's ClusterRole name, waiting while it
// is aggregated but not filled yet: in a cluster that has just started, the
// aggregation controller fills admin, edit and view a moment after the API
// server made them empty, and the tenant's copies (TenantClusterRoles) take
// their rules from it.
func (c *Client) clusterStandardRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error) {
	var std *rbacv1.ClusterRole
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, upstream.EnforcementTimeout, true, func(ctx context.Context) (bool, error) {
		var err error
		std, err = c.Kube.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("read the cluster's ClusterRole %s: %w", name, err)
		}
		return std.AggregationRule == nil || len(std.Rules) > 0, nil
	})
	if err != nil && std != nil && len(std.Rules) == 0 {
		return nil, fmt.Errorf("the cluster's ClusterRole %s is aggregated but still empty (is kube-controller-manager's clusterrole-aggregation controller running?): %w", name, err)
	}
	return std, err
}
