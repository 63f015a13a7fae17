package tenantctl

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ExternalNameResource is the virtual resource (in kubectl-zoo's API group)
// whose `use` on an external name or "*." pattern, granted to the registry
// identity in a tenant's MembershipNamespace, lets the tenant's Services
// name it as their externalName (the zoo-tenant policy asks the authorizer
// about the name and its one-label wildcard, admission_address.go). The
// grant is the tenant's policy's externalNames, as the priority grant is
// its priorityClasses (policy_priority.go).
const ExternalNameResource = "externalnames"

// ExternalNameGrantRoleBinding names the RoleBinding, in a tenant's
// MembershipNamespace, of its external-name grant.
const ExternalNameGrantRoleBinding = "zoo-tenant-external-names"

// ExternalNameGrantClusterRole names the ClusterRole of a tenant's
// external-name grant; without the tenant's prefix, the tenant cannot
// change it.
func ExternalNameGrantClusterRole(t translate.Tenant) string {
	return "zoo-tenant-external-names-" + t.Name()
}

// ExternalNameGrant returns the ClusterRole granting `use` of the names and
// its RoleBinding to the registry identity in t's MembershipNamespace.
func ExternalNameGrant(t translate.Tenant, names []string) (*rbacv1.ClusterRole, *rbacv1.RoleBinding) {
	role := &rbacv1.ClusterRole{
		TypeMeta:   clusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: ExternalNameGrantClusterRole(t), Labels: tenantManagedLabels(t)},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{translate.APIGroup}, Resources: []string{ExternalNameResource}, ResourceNames: names, Verbs: []string{"use"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: ExternalNameGrantRoleBinding, Namespace: MembershipNamespace(t), Labels: tenantManagedLabels(t)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: RegistryNamespace, Name: RegistryServiceAccount}},
	}
	return role, binding
}

// applyExternalNameGrant applies the tenant's ExternalNameGrant, or deletes
// it when names is empty (a rule with no resourceNames would grant all).
func (c *Client) applyExternalNameGrant(ctx context.Context, t translate.Tenant, names []string) error {
	if len(names) == 0 {
		_, err := c.revokeExternalNameGrant(ctx, t)
		return err
	}
	role, binding := ExternalNameGrant(t, names)
	if _, err := c.apply(ctx, role, false); err != nil {
		return err
	}
	_, err := c.apply(ctx, binding, false)
	return err
}

// revokeExternalNameGrant deletes the tenant's ExternalNameGrant, binding
// first; it reports whether anything was there.
func (c *Client) revokeExternalNameGrant(ctx context.Context, t translate.Tenant) (bool, error) {
	b, err := c.deleteExact(ctx, "rolebinding", MembershipNamespace(t), ExternalNameGrantRoleBinding, t)
	if err != nil {
		return b, err
	}
	r, err := c.deleteExact(ctx, "clusterrole", "", ExternalNameGrantClusterRole(t), t)
	return b || r, err
}

// waitExternalNameGrant returns once the authorizer lets the registry
// identity use every name in t's MembershipNamespace (RBAC picks up new
// bindings asynchronously).
func (c *Client) waitExternalNameGrant(ctx context.Context, t translate.Tenant, names []string) error {
	user := "system:serviceaccount:" + RegistryNamespace + ":" + RegistryServiceAccount
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + RegistryNamespace, "system:authenticated"}
	for _, name := range names {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: MembershipNamespace(t), Verb: "use", Group: translate.APIGroup, Resource: ExternalNameResource, Name: name,
			},
		}}
		var last string
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, EnforcementTimeout, true, func(ctx context.Context) (bool, error) {
			out, err := c.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
			if err != nil {
				last = err.Error()
				return false, nil
			}
			last = out.Status.Reason
			return out.Status.Allowed, nil
		})
		if err != nil {
			return fmt.Errorf("the API server does not yet let the Services of tenant %q name %s (%s): %w", t, name, last, err)
		}
	}
	return nil
}
