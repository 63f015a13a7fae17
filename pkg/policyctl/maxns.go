package policyctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The namespace limit of a tenant (policy.Policy.MaxNamespaces) upstream.
// The API server cannot count in CEL, so a reconciler counts: while a
// tenant has as many namespaces as its limit allows, a RoleBinding named
// NamespaceLimitBindingPrefix+"<limit>" in the tenant's MembershipNamespace
// grants the registry identity `use` of namespacelimits/reached, and
// NamespaceLimitPolicy refuses every namespace the tenant's identities
// create while the authorizer says so: one authorization of one namespace's
// bindings, only on namespace CREATE.
const (
	// NamespaceLimitClusterRole grants `use` of namespacelimits/reached.
	NamespaceLimitClusterRole = "zoo-namespace-limit-reached"
	// NamespaceLimitBindingPrefix starts the name of the marking RoleBinding;
	// the limit follows, so that the authorizer's reason names it.
	NamespaceLimitBindingPrefix = "zoo-max-namespaces-"
	// NamespaceLimitLabel marks the RoleBinding; its value is the limit.
	NamespaceLimitLabel = translate.APIGroup + "/max-namespaces"
)

// NamespaceLimitClusterRoleObject is the ClusterRole of the marking
// RoleBindings (applied by install).
func NamespaceLimitClusterRoleObject() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: NamespaceLimitClusterRole, Labels: tenantapi.ManagedLabels()},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{translate.APIGroup}, Resources: []string{admissionrules.NamespaceLimitResource},
			ResourceNames: []string{admissionrules.NamespaceLimitReached}, Verbs: []string{"use"},
		}},
	}
}

// CountNamespaces reads the tenant's limit from its record and counts its
// namespaces: two reads, of the record and of the namespaces labeled as the
// tenant's.
func (c *Client) CountNamespaces(ctx context.Context, tenant string) (tenantapi.NamespaceCount, error) {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return tenantapi.NamespaceCount{}, err
	}
	u, err := c.Dynamic.Resource(tenantapi.TenantGVR).Get(ctx, tenant, metav1.GetOptions{})
	if err != nil {
		return tenantapi.NamespaceCount{}, fmt.Errorf("get tenant %q: %w", tenant, err)
	}
	rec, err := tenantapi.TenantFromUnstructured(u)
	if err != nil {
		return tenantapi.NamespaceCount{}, err
	}
	p, err := tenantapi.PolicyOf(rec)
	if err != nil {
		return tenantapi.NamespaceCount{}, err
	}
	out := tenantapi.NamespaceCount{Limit: policy.Effective(p, policy.Policy{}).MaxNamespaces}
	if out.Limit == nil {
		return out, nil
	}
	nss, err := c.TenantNamespacesFrom(ctx, t, false) // exact, never an index
	if err != nil {
		return tenantapi.NamespaceCount{}, err
	}
	out.Count = len(nss)
	return out, nil
}

// ReconcileNamespaceLimit makes the upstream's namespace limit of tenant
// agree with its record and its namespaces: the marking RoleBinding exists
// exactly while the tenant is at its limit. The proxy, the server and
// `policy set` call it after a change; it is idempotent.
func (c *Client) ReconcileNamespaceLimit(ctx context.Context, tenant string) error {
	n, err := c.CountNamespaces(ctx, tenant)
	if err != nil {
		return err
	}
	_, err = c.SetNamespaceLimitReached(ctx, tenant, n)
	return err
}

// SetNamespaceLimitReached creates the marking RoleBinding when n is at its
// limit and deletes every other one (a stale limit, or none reached). It
// reports whether a marking binding was deleted, i.e. whether the upstream
// may still refuse creates until its authorizer has seen that (see
// WaitNamespaceLimitLifted).
func (c *Client) SetNamespaceLimitReached(ctx context.Context, tenant string, n tenantapi.NamespaceCount) (lifted bool, err error) {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return false, err
	}
	ns := tenantapi.MembershipNamespace(t)
	want := ""
	if n.Reached() {
		want = NamespaceLimitBindingPrefix + strconv.Itoa(int(*n.Limit))
	}
	rbs := c.Kube.RbacV1().RoleBindings(ns)
	list, err := rbs.List(ctx, metav1.ListOptions{LabelSelector: NamespaceLimitLabel})
	if err != nil {
		return false, fmt.Errorf("list the namespace limit of tenant %s: %w", tenant, err)
	}
	have := false
	for _, rb := range list.Items {
		if rb.Name == want {
			have = true
			continue
		}
		if !strings.HasPrefix(rb.Name, NamespaceLimitBindingPrefix) {
			continue
		}
		err := rbs.Delete(ctx, rb.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &rb.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return lifted, fmt.Errorf("lift the namespace limit of tenant %s: %w", tenant, err)
		}
		lifted = true
	}
	if want == "" || have {
		return lifted, nil
	}
	labels := tenantapi.TenantManagedLabels(t)
	labels[NamespaceLimitLabel] = strconv.Itoa(int(*n.Limit))
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: want, Namespace: ns, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: NamespaceLimitClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: tenantapi.RegistryNamespace, Name: tenantapi.RegistryServiceAccount}},
	}
	if _, err := rbs.Create(ctx, rb, metav1.CreateOptions{FieldManager: tenantapi.FieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return lifted, fmt.Errorf("mark tenant %s at its namespace limit: %w", tenant, err)
	}
	return lifted, nil
}

// WaitNamespaceLimitLifted waits (at most timeout) until the upstream's
// authorizer no longer sees tenant at its namespace limit, asked with a
// SubjectAccessReview of the registry identity: RBAC follows bindings with
// an informer, so a deleted binding may be seen a moment later.
func (c *Client) WaitNamespaceLimitLifted(ctx context.Context, tenant string, timeout time.Duration) error {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return err
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + tenantapi.RegistryNamespace + ":" + tenantapi.RegistryServiceAccount,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + tenantapi.RegistryNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: tenantapi.MembershipNamespace(t), Verb: "use",
			Group: translate.APIGroup, Resource: admissionrules.NamespaceLimitResource, Name: admissionrules.NamespaceLimitReached},
	}}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := c.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return !got.Status.Allowed, nil
	})
	if err != nil {
		return fmt.Errorf("wait for the namespace limit of tenant %s to be lifted: %w", tenant, err)
	}
	return nil
}
