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

// PriorityClassResource is the virtual resource (in kubectl-zoo's API
// group) whose `use` on a cluster PriorityClass's name, granted to the
// registry identity in a tenant's MembershipNamespace, lets the tenant's pods
// use that class although its value is positive (PriorityPolicy asks the
// authorizer). The grant is the tenant's policy's priorityClasses
// (PriorityGrant).
const PriorityClassResource = "priorityclasses"

// PriorityGrantRoleBinding names the RoleBinding, in a tenant's
// MembershipNamespace, of its priority grant.
const PriorityGrantRoleBinding = "zoo-tenant-priority"

// PriorityGrantClusterRole names the ClusterRole of a tenant's priority
// grant. It is cluster-scoped and does not carry the tenant's prefix, so the
// tenant cannot change it (TenantPolicy), though the tenant holds every
// right in the namespace of the binding.
func PriorityGrantClusterRole(t translate.Tenant) string { return "zoo-tenant-priority-" + t.Name() }

// PriorityGrantTenantLabel marks the ClusterRole of a tenant's priority
// grant with the tenant's name. The role is the platform's, not the
// tenant's, so it does not carry translate.TenantLabel: every ClusterRole
// aggregation selector of the tenant requires that label (translate,
// aggregationRule; TenantPolicy rule 5), and would otherwise copy the
// grant's rule into a role of the tenant.
const PriorityGrantTenantLabel = translate.APIGroup + "/priority-grant-of"

// PriorityGrant returns the objects that let the pods of tenant t use the
// cluster PriorityClasses classes: a ClusterRole granting `use` of them
// (PriorityClassResource) and a RoleBinding of it to the registry identity
// in t's MembershipNamespace. A tenant can neither bind the registry
// identity nor refer to a ClusterRole outside its prefix (TenantPolicy).
func PriorityGrant(t translate.Tenant, classes []string) (*rbacv1.ClusterRole, *rbacv1.RoleBinding) {
	labels := managedLabels()
	labels[PriorityGrantTenantLabel] = t.Name()
	role := &rbacv1.ClusterRole{
		TypeMeta:   clusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: PriorityGrantClusterRole(t), Labels: labels},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{translate.APIGroup}, Resources: []string{PriorityClassResource}, ResourceNames: classes, Verbs: []string{"use"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: PriorityGrantRoleBinding, Namespace: MembershipNamespace(t), Labels: tenantManagedLabels(t)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: RegistryNamespace, Name: RegistryServiceAccount}},
	}
	return role, binding
}

// applyPriorityGrant applies the tenant's PriorityGrant, or deletes it when
// classes is empty (a ClusterRole rule with no resourceNames would grant
// every class).
func (c *Client) applyPriorityGrant(ctx context.Context, t translate.Tenant, classes []string) error {
	if len(classes) == 0 {
		_, err := c.revokePriorityGrant(ctx, t)
		return err
	}
	role, binding := PriorityGrant(t, classes)
	if _, err := c.apply(ctx, role, false); err != nil {
		return err
	}
	_, err := c.apply(ctx, binding, false)
	return err
}

// revokePriorityGrant deletes the tenant's PriorityGrant, binding first; it
// reports whether anything was there.
func (c *Client) revokePriorityGrant(ctx context.Context, t translate.Tenant) (bool, error) {
	b, err := c.deleteExact(ctx, "rolebinding", MembershipNamespace(t), PriorityGrantRoleBinding, t)
	if err != nil {
		return b, err
	}
	r, err := c.deleteExactLabeled(ctx, "clusterrole", "", PriorityGrantClusterRole(t), PriorityGrantTenantLabel, t.Name())
	if !r && err == nil { // a grant of an earlier version, labeled as the tenant's
		r, err = c.deleteExact(ctx, "clusterrole", "", PriorityGrantClusterRole(t), t)
	}
	return b || r, err
}

// waitPriorityGrant returns once the authorizer lets the registry identity
// use every class of classes in t's MembershipNamespace: RBAC picks up new
// bindings asynchronously, and `policy set` should return only when the
// pods may use them.
func (c *Client) waitPriorityGrant(ctx context.Context, t translate.Tenant, classes []string) error {
	user := "system:serviceaccount:" + RegistryNamespace + ":" + RegistryServiceAccount
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + RegistryNamespace, "system:authenticated"}
	for _, class := range classes {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: MembershipNamespace(t), Verb: "use", Group: translate.APIGroup, Resource: PriorityClassResource, Name: class,
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
			return fmt.Errorf("the API server does not yet let the pods of tenant %q use PriorityClass %s (%s): %w", t, class, last, err)
		}
	}
	return nil
}
