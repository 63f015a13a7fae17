package policyctl

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// registryGrant is a grant of `use` of some names of a virtual resource of
// kubectl-zoo's API group to the registry identity in a tenant's
// MembershipNamespace: an admission policy asks the authorizer about it, so
// the check costs one namespace's bindings whatever the number of tenants
// (the PriorityClasses and the external names a tenant's policy allows). It
// is a ClusterRole without the tenant's prefix, which the tenant cannot
// change (TenantPolicy), bound in that namespace, where the tenant can
// neither bind the registry identity nor refer to a ClusterRole outside its
// prefix.
type registryGrant struct {
	// resource is the virtual resource.
	resource string
	// binding names the RoleBinding.
	binding string
	// rolePrefix, with the tenant's name, names the ClusterRole.
	rolePrefix string
	// ownerLabel names the tenant on the ClusterRole. The role is the
	// platform's, so it does not carry translate.TenantLabel: every
	// ClusterRole aggregation selector of the tenant selects that label,
	// and would copy the grant's rule into a role of the tenant.
	ownerLabel string
	// who uses the names and what they are, for errors ("the pods of
	// tenant", "PriorityClass").
	who, noun string
}

// role names the grant's ClusterRole for t.
func (g registryGrant) role(t translate.Tenant) string { return g.rolePrefix + t.Name() }

// objects returns the ClusterRole granting `use` of names, and its
// RoleBinding to the registry identity in t's MembershipNamespace.
func (g registryGrant) objects(t translate.Tenant, names []string) (*rbacv1.ClusterRole, *rbacv1.RoleBinding) {
	labels := tenantapi.ManagedLabels()
	labels[g.ownerLabel] = t.Name()
	role := &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: g.role(t), Labels: labels},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{translate.APIGroup}, Resources: []string{g.resource}, ResourceNames: names, Verbs: []string{"use"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   platformobj.RoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: g.binding, Namespace: tenantapi.MembershipNamespace(t), Labels: tenantapi.TenantManagedLabels(t)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: tenantapi.RegistryNamespace, Name: tenantapi.RegistryServiceAccount}},
	}
	return role, binding
}

// applyGrant applies g for t's names, or deletes it when there are none (a
// rule with no resourceNames would grant every name).
func (c *Client) applyGrant(ctx context.Context, g registryGrant, t translate.Tenant, names []string) error {
	if len(names) == 0 {
		_, err := c.revokeGrant(ctx, g, t)
		return err
	}
	role, binding := g.objects(t, names)
	if _, err := c.Apply(ctx, role, false); err != nil {
		return err
	}
	_, err := c.Apply(ctx, binding, false)
	return err
}

// revokeGrant deletes t's grant g, binding first; it reports whether
// anything was there. A role of an earlier version, labeled as the
// tenant's, is deleted too.
func (c *Client) revokeGrant(ctx context.Context, g registryGrant, t translate.Tenant) (bool, error) {
	b, err := c.DeleteExact(ctx, "rolebinding", tenantapi.MembershipNamespace(t), g.binding, t)
	if err != nil {
		return b, err
	}
	r, err := c.DeleteExactLabeled(ctx, "clusterrole", "", g.role(t), g.ownerLabel, t.Name())
	if !r && err == nil {
		r, err = c.DeleteExact(ctx, "clusterrole", "", g.role(t), t)
	}
	return b || r, err
}

// waitGrant returns once the authorizer lets the registry identity use
// every one of names in t's MembershipNamespace: RBAC picks up new bindings
// asynchronously, and `policy set` should return only when they hold.
func (c *Client) waitGrant(ctx context.Context, g registryGrant, t translate.Tenant, names []string) error {
	user := "system:serviceaccount:" + tenantapi.RegistryNamespace + ":" + tenantapi.RegistryServiceAccount
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + tenantapi.RegistryNamespace, "system:authenticated"}
	for _, name := range names {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: tenantapi.MembershipNamespace(t), Verb: "use", Group: translate.APIGroup, Resource: g.resource, Name: name,
			},
		}}
		var last string
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, upstream.EnforcementTimeout, true, func(ctx context.Context) (bool, error) {
			out, err := c.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
			if err != nil {
				last = err.Error()
				return false, nil
			}
			last = out.Status.Reason
			return out.Status.Allowed, nil
		})
		if err != nil {
			return fmt.Errorf("the API server does not yet let %s %q use %s %s (%s): %w", g.who, t, g.noun, name, last, err)
		}
	}
	return nil
}

// policyGrant is a registryGrant of a list of the tenant's policy.
type policyGrant struct {
	grant registryGrant
	names func(policy.Policy) []string
}

// policyGrants are the registry grants a tenant's policy implies: `tenant
// create` and `policy set` apply them, `tenant delete` revokes them.
var policyGrants = []policyGrant{
	{priorityGrant, func(p policy.Policy) []string { return p.PriorityClasses }},   // priority.go
	{externalNameGrant, func(p policy.Policy) []string { return p.ExternalNames }}, // externalnames.go
	{volumeSourceGrant, func(p policy.Policy) []string { return p.VolumeSources }}, // admissionrules/volumes.go
}

// ApplyPolicyGrants applies every grant of p for t (applyGrant).
func (c *Client) ApplyPolicyGrants(ctx context.Context, t translate.Tenant, p policy.Policy) error {
	for _, g := range policyGrants {
		if err := c.applyGrant(ctx, g.grant, t, g.names(p)); err != nil {
			return err
		}
	}
	return nil
}

// WaitPolicyGrants returns once every grant of p for t holds (waitGrant).
func (c *Client) WaitPolicyGrants(ctx context.Context, t translate.Tenant, p policy.Policy) error {
	for _, g := range policyGrants {
		if err := c.waitGrant(ctx, g.grant, t, g.names(p)); err != nil {
			return err
		}
	}
	return nil
}

// RevokePolicyGrants revokes every grant of t, reporting each ClusterRole
// deleted; found says whether anything was there.
func (c *Client) RevokePolicyGrants(ctx context.Context, t translate.Tenant, progress func(string, ...any)) (found bool, err error) {
	for _, g := range policyGrants {
		was, err := c.revokeGrant(ctx, g.grant, t)
		if err != nil {
			return found, err
		}
		if was {
			found = true
			progress("clusterrole.rbac.authorization.k8s.io/%s deleted", g.grant.role(t))
		}
	}
	return found, nil
}

// volumeSourceGrant lets a tenant's volumes name the storage sources its
// policy allows.
var volumeSourceGrant = registryGrant{resource: admissionrules.VolumeSourceResource, binding: admissionrules.VolumeSourceGrantRoleBinding,
	rolePrefix: "zoo-tenant-volume-sources-", ownerLabel: admissionrules.VolumeSourceGrantTenantLabel, who: "the volumes of tenant", noun: "the volume source"}
