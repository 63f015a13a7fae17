package upstream

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// DeleteExact deletes one of kubectl-zoo's per-tenant objects by its exact
// namespace ("" when cluster-scoped) and name, after checking it is labeled
// as the tenant's.
func (c *Client) DeleteExact(ctx context.Context, kind, namespace, name string, t translate.Tenant) (bool, error) {
	return c.DeleteExactLabeled(ctx, kind, namespace, name, translate.TenantLabel, t.Name())
}

// DeleteExactLabeled is DeleteExact for an object labeled key=value.
func (c *Client) DeleteExactLabeled(ctx context.Context, kind, namespace, name, key, value string) (bool, error) {
	gvr, ok := map[string]schema.GroupVersionResource{
		"clusterrole":        rbacv1.SchemeGroupVersion.WithResource(translate.ResourceOf(rbacv1.GroupName, "ClusterRole")),
		"clusterrolebinding": rbacv1.SchemeGroupVersion.WithResource(translate.ResourceOf(rbacv1.GroupName, "ClusterRoleBinding")),
		"rolebinding":        rbacv1.SchemeGroupVersion.WithResource(translate.ResourceOf(rbacv1.GroupName, "RoleBinding")),
	}[kind]
	if !ok {
		return false, fmt.Errorf("DeleteExact: unknown kind %q", kind)
	}
	u, err := c.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s %s: %w", kind, name, err)
	}
	if u.GetLabels()[key] != value {
		return false, nil
	}
	uid := u.GetUID()
	err = c.Dynamic.Resource(gvr).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("delete %s %s: %w", kind, name, err)
	}
	return true, nil
}
