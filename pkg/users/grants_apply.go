package users

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// ValidateUserGrant checks a grant before anything is asked of the cluster.
func ValidateUserGrant(g UserGrant) error {
	if err := translate.ValidateTenantName(g.Tenant); err != nil {
		return err
	}
	if err := ValidateUpstreamUser(g.UpstreamUser); err != nil {
		return err
	}
	return tenantapi.ValidateLocalUser("--as", g.User)
}

// AddUserGrant lets g.UpstreamUser act as the tenant identity
// zoo:<tenant>:<user> (UserGrantRBAC), replacing the upstream user's
// earlier grant in that tenant. It refuses a tenant that does not exist or
// is being deleted, and a user who is one of the tenant's administrators:
// serve adds the group zoo:admins for them, which is every tenant's
// administrators' group, and a grant that followed spec.admins would have
// to be rewritten whenever it changes. It returns whether a grant of the
// upstream user existed before.
func (c *Client) AddUserGrant(ctx context.Context, g UserGrant) (replaced bool, err error) {
	if err := ValidateUserGrant(g); err != nil {
		return false, err
	}
	if err := c.CheckInstalled(ctx); err != nil {
		return false, err
	}
	rec, err := c.liveTenant(ctx, g.Tenant)
	if err != nil {
		return false, err
	}
	if slices.Contains(rec.Spec.Admins, g.User) {
		return false, fmt.Errorf("user %q is an administrator of tenant %q (spec.admins): tenant user add grants only identities that are not", g.User, g.Tenant)
	}
	role, binding, err := UserGrantRBAC(g, tenantOwnerRef(rec.Name, rec.UID))
	if err != nil {
		return false, err
	}
	_, err = c.Kube.RbacV1().ClusterRoleBindings().Get(ctx, binding.Name, metav1.GetOptions{})
	replaced = err == nil
	// The role first: a binding to a missing role grants nothing, a role
	// without its binding neither.
	if _, err := c.Apply(ctx, role, false); err != nil {
		return false, err
	}
	if _, err := c.Apply(ctx, binding, false); err != nil {
		return false, err
	}
	return replaced, nil
}

// RemoveUserGrant takes upstreamUser's grant in tenant back. It fails when
// there is none. The tenant need not exist any more.
func (c *Client) RemoveUserGrant(ctx context.Context, tenant, upstreamUser string) (UserGrant, error) {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return UserGrant{}, err
	}
	if err := ValidateUpstreamUser(upstreamUser); err != nil {
		return UserGrant{}, err
	}
	name := UserGrantName(t, upstreamUser)
	b, err := c.Kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return UserGrant{}, fmt.Errorf("upstream user %q has no grant in tenant %q", upstreamUser, tenant)
	case err != nil:
		return UserGrant{}, fmt.Errorf("read the grant of %q in tenant %q: %w", upstreamUser, tenant, err)
	}
	g, ok := userGrantOf(b)
	if !ok || g.Tenant != tenant {
		return UserGrant{}, fmt.Errorf("ClusterRoleBinding %s is not a grant of kubectl-zoo; not touched", name)
	}
	// The binding first: the grant ends with it.
	if err := c.deleteUserGrantObjects(ctx, name); err != nil {
		return UserGrant{}, err
	}
	return g, nil
}

// ListUserGrants returns the grants of tenant (every tenant's when empty),
// sorted by tenant and upstream user.
func (c *Client) ListUserGrants(ctx context.Context, tenant string) ([]UserGrant, error) {
	selector := UserGrantTenantLabel
	if tenant != "" {
		if err := translate.ValidateTenantName(tenant); err != nil {
			return nil, err
		}
		selector += "=" + tenant
	}
	var out []UserGrant
	opts := metav1.ListOptions{LabelSelector: selector, Limit: upstream.DefaultChunkSize}
	for {
		list, err := c.Kube.RbacV1().ClusterRoleBindings().List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("list the grants of upstream users: %w", err)
		}
		for i := range list.Items {
			if g, ok := userGrantOf(&list.Items[i]); ok {
				out = append(out, g)
			}
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	slices.SortFunc(out, func(a, b UserGrant) int {
		if c := strings.Compare(a.Tenant, b.Tenant); c != 0 {
			return c
		}
		return strings.Compare(a.UpstreamUser, b.UpstreamUser)
	})
	return out, nil
}

// DeleteUserGrants removes every grant of tenant t (tenant delete), of
// upstream users and of certificates of the cluster's signer
// (certgrant_apply.go): the garbage collector would, once the record is gone,
// but not at once.
func (c *Client) DeleteUserGrants(ctx context.Context, t translate.Tenant, progress func(string, ...any)) ([]string, error) {
	var deleted []string
	for _, g := range []struct{ label, prefix string }{{UserGrantTenantLabel, UserGrantPrefix}, {platformobj.CertGrantTenantLabel, platformobj.CertGrantPrefix}} {
		some, err := c.deleteGrantsLabeled(ctx, t, g.label, g.prefix, progress)
		deleted = append(deleted, some...)
		if err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}

// deleteGrantsLabeled deletes the ClusterRoles and ClusterRoleBindings
// labeled label=<tenant> whose names start with prefix+<tenant>+":".
func (c *Client) deleteGrantsLabeled(ctx context.Context, t translate.Tenant, label, prefix string, progress func(string, ...any)) ([]string, error) {
	opts := metav1.ListOptions{LabelSelector: label + "=" + t.Name()}
	bindings, err := c.Kube.RbacV1().ClusterRoleBindings().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list the grants of tenant %q: %w", t, err)
	}
	roles, err := c.Kube.RbacV1().ClusterRoles().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list the grants of tenant %q: %w", t, err)
	}
	names := map[string]bool{}
	for _, b := range bindings.Items {
		names[b.Name] = true
	}
	for _, r := range roles.Items {
		names[r.Name] = true
	}
	var deleted []string
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if !strings.HasPrefix(name, prefix+t.Name()+":") {
			continue
		}
		if err := c.deleteUserGrantObjects(ctx, name); err != nil {
			return deleted, err
		}
		progress("grant %s deleted", name)
		deleted = append(deleted, "clusterrolebinding.rbac.authorization.k8s.io/"+name)
	}
	return deleted, nil
}

// deleteUserGrantObjects deletes the binding, then the role, of a grant.
func (c *Client) deleteUserGrantObjects(ctx context.Context, name string) error {
	err := c.Kube.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete ClusterRoleBinding %s: %w", name, err)
	}
	err = c.Kube.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete ClusterRole %s: %w", name, err)
	}
	return nil
}

// liveTenant reads a tenant's record, with a one-line error when it is not
// there or is being deleted.
func (c *Client) liveTenant(ctx context.Context, name string) (*tenantapi.Tenant, error) {
	rec, err := c.ReadTenant(ctx, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("tenant %q not found (kubectl zoo tenant create %s)", name, name)
	case err != nil:
		return nil, fmt.Errorf("read tenant %q: %w", name, err)
	case rec.DeletionTimestamp != nil:
		return nil, fmt.Errorf("tenant %q is being deleted", name)
	}
	return rec, nil
}
