package tenantctl

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// applyMembership applies the tenant's MembershipRoleBinding (TenantRBAC).
// A RoleBinding's roleRef cannot change, so when the tenant's Pod Security
// level changed, the old binding is replaced. It then removes the per-tenant
// ClusterRole and ClusterRoleBindings that kubectl-zoo made before the
// membership was a RoleBinding.
func (c *Client) applyMembership(ctx context.Context, t translate.Tenant, tenant *tenantapi.Tenant) error {
	rb, err := platformobj.TenantRBAC(tenant)
	if err != nil {
		return err
	}
	rbs := c.Kube.RbacV1().RoleBindings(rb.Namespace)
	old, err := rbs.Get(ctx, rb.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("read RoleBinding %s/%s: %w", rb.Namespace, rb.Name, err)
	case old.RoleRef != rb.RoleRef:
		uid := old.UID
		err := rbs.Delete(ctx, rb.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("replace RoleBinding %s/%s: %w", rb.Namespace, rb.Name, err)
		}
	}
	if _, err := c.Apply(ctx, rb, false); err != nil {
		return err
	}
	_, err = c.deleteLegacyRBAC(ctx, t, func(string, ...any) {})
	return err
}

// revokeMembership deletes the tenant's MembershipRoleBinding (and what is
// left of the RBAC of older versions): from then on IdentityPolicy refuses
// every write of the tenant's zoo: identities. It reports whether anything
// was there.
func (c *Client) revokeMembership(ctx context.Context, t translate.Tenant, progress func(string, ...any)) (bool, error) {
	found, err := c.DeleteExact(ctx, "rolebinding", tenantapi.MembershipNamespace(t), tenantapi.MembershipRoleBinding, t)
	if err != nil {
		return false, err
	}
	if found {
		progress("rolebinding.rbac.authorization.k8s.io/%s deleted (namespace %s)", tenantapi.MembershipRoleBinding, tenantapi.MembershipNamespace(t))
	}
	grants, err := c.policy().RevokePolicyGrants(ctx, t, progress) // pkg/policyctl/registry_grant.go
	if err != nil {
		return found, err
	}
	found = found || grants
	legacy, err := c.deleteLegacyRBAC(ctx, t, progress)
	return found || legacy, err
}

// deleteLegacyRBAC deletes the per-tenant ClusterRole and
// ClusterRoleBindings of kubectl-zoo before 0.3, where they are left.
func (c *Client) deleteLegacyRBAC(ctx context.Context, t translate.Tenant, progress func(string, ...any)) (bool, error) {
	found := false
	for _, kn := range []struct{ kind, name string }{
		{"clusterrolebinding", legacyAdminsBindingName(t)},
		{"clusterrolebinding", legacyBindingName(t)},
		{"clusterrole", legacyBindingName(t)},
	} {
		deleted, err := c.DeleteExact(ctx, kn.kind, "", kn.name, t)
		if err != nil {
			return found, err
		}
		if deleted {
			found = true
			progress("%s.rbac.authorization.k8s.io/%s deleted", kn.kind, kn.name)
		}
	}
	return found, nil
}

// IsAdmin says whether user (tenant-local) is one of the administrators the
// record of tenant names (spec.admins): the proxy then acts with
// translate.AdminsGroup. A tenant without a record is an error.
func (c *Client) IsAdmin(ctx context.Context, tenant, user string) (bool, error) {
	if _, err := translate.NewTenant(tenant); err != nil {
		return false, err
	}
	rec, err := c.ReadTenant(ctx, tenant)
	switch {
	case apierrors.IsNotFound(err):
		return false, fmt.Errorf("tenant %q not found (kubectl zoo tenant create %s)", tenant, tenant)
	case err != nil:
		return false, fmt.Errorf("read tenant %q: %w", tenant, err)
	}
	return slices.Contains(rec.Spec.Admins, user), nil
}

// legacyBindingName and legacyAdminsBindingName name the per-tenant
// ClusterRole and ClusterRoleBindings of kubectl-zoo before 0.3; `tenant
// create` and `tenant delete` remove them where they are left.
func legacyBindingName(t translate.Tenant) string       { return "zoo-tenant-" + t.Name() }
func legacyAdminsBindingName(t translate.Tenant) string { return legacyBindingName(t) + "-admins" }
