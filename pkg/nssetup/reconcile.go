package nssetup

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// reconcile gives the upstream namespace ns what it needs, when it is a
// tenant's and is not being deleted. What it finds in the informers'
// caches decides; only what is missing costs upstream requests:
//
//   - the admins' RoleBinding missing: the policy objects first (until its
//     ResourceQuota exists the namespace admits no create, the RoleBinding
//     included), then the RoleBinding and the RoleBindings of the
//     tenant's ClusterRoleBindings (a namespace nobody set up);
//   - the admins' RoleBinding changed (subjects, role, labels): deleted
//     with the own identity (the change may have taken the admins' right
//     to fix it) and made again;
//   - a RoleBinding of a ClusterRoleBinding deleted or changed: the
//     tenant's ClusterRoleBindings are granted in ns again.
func (r *Reconciler) reconcile(ctx context.Context, ns string) (err error) {
	t, ok := r.target(ns)
	grants := r.takeGrants(ns)
	if !ok {
		return nil
	}
	defer func() {
		if err != nil && grants { // to be written again on the retry
			r.mu.Lock()
			r.grants[ns] = true
			r.mu.Unlock()
		}
	}()
	have, err := r.admins.RoleBindings(ns).Get(tenantapi.NamespaceAdminsRoleBinding)
	if apierrors.IsNotFound(err) {
		have, err = nil, nil
	}
	if err != nil {
		return err
	}
	rec, want, err := r.wanted(ctx, t, ns, r.records.get)
	if err != nil || want == nil || (have != nil && sameBinding(have, want) && !grants) {
		return err
	}
	// About to write: from the record as it is now, not as remembered (a
	// change of admins that `tenant create` has just written to the
	// RoleBindings must not be undone).
	if rec, want, err = r.wanted(ctx, t, ns, r.records.fresh); err != nil || want == nil || (have != nil && sameBinding(have, want) && !grants) {
		return err
	}
	return r.restore(ctx, t, rec, want, have, grants)
}

// target returns the tenant of the upstream namespace ns when it is to be
// set up: in the informer's cache, not being deleted, and a tenant's
// (tenantOf).
func (r *Reconciler) target(ns string) (translate.Tenant, bool) {
	obj, exists, err := r.nss.GetByKey(ns)
	namespace, ok := obj.(*corev1.Namespace)
	if err != nil || !exists || !ok || namespace.DeletionTimestamp != nil || namespace.Status.Phase == corev1.NamespaceTerminating {
		return translate.Tenant{}, false
	}
	return r.tenantOf(namespace) // nobody's is never set up
}

// wanted returns t's record, read with read, and the admins' RoleBinding
// of ns it implies; nil when there is none to make (no record, a record
// being deleted, no admins).
func (r *Reconciler) wanted(ctx context.Context, t translate.Tenant, ns string,
	read func(context.Context, string) (*tenantapi.Tenant, error)) (*tenantapi.Tenant, *rbacv1.RoleBinding, error) {
	rec, err := read(ctx, t.Name())
	if err != nil || rec == nil || rec.DeletionTimestamp != nil {
		return nil, nil, err
	}
	want, err := adminsRoleBinding(rec, ns)
	if errors.Is(err, errNoAdmins) {
		return nil, nil, nil
	}
	return rec, want, err
}

// restore writes what reconcile found missing in want's namespace.
func (r *Reconciler) restore(ctx context.Context, t translate.Tenant, rec *tenantapi.Tenant, want, have *rbacv1.RoleBinding, grants bool) error {
	ns := want.Namespace
	asAdmin, err := r.asAdmin(t, rec)
	if err != nil {
		return err
	}
	switch {
	case have == nil:
		klog.V(1).InfoS("setting up a tenant namespace that has no admins' RoleBinding", "tenant", t, "namespace", ns)
		if err := r.cfg.Client.ReconcileNamespacePolicyObjects(ctx, t.Name(), ns); err != nil {
			return fmt.Errorf("the policy objects of %s: %w", ns, err)
		}
		grants = true
	case !sameBinding(have, want):
		klog.V(1).InfoS("restoring the admins' RoleBinding of a tenant namespace", "tenant", t, "namespace", ns)
		pre := metav1.Preconditions{UID: &have.UID, ResourceVersion: &have.ResourceVersion}
		err := r.cfg.Kube.RbacV1().RoleBindings(ns).Delete(ctx, have.Name, metav1.DeleteOptions{Preconditions: &pre})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the changed RoleBinding %s/%s: %w", ns, have.Name, err)
		}
	}
	if have == nil || !sameBinding(have, want) {
		if _, err := asAdmin.RoleBindings(ns).Create(ctx, want, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating RoleBinding %s/%s: %w", ns, want.Name, err)
		}
	}
	if !grants {
		return nil
	}
	g := crbstore.Grants{Tenant: t, AsTenant: asAdmin, Own: r.cfg.Kube.RbacV1()}
	if err := g.MaterializeInto(ctx, ns); err != nil {
		return fmt.Errorf("granting the tenant's ClusterRoleBindings in %s: %w", ns, err)
	}
	return nil
}

// adminsRoleBinding is the admins' RoleBinding of rec's namespace ns.
func adminsRoleBinding(rec *tenantapi.Tenant, ns string) (*rbacv1.RoleBinding, error) {
	if len(rec.Spec.Admins) == 0 {
		return nil, errNoAdmins
	}
	rbs, err := platformobj.NamespaceRBAC(rec, ns)
	if err != nil {
		return nil, err
	}
	for _, rb := range rbs {
		if rb.Name == tenantapi.NamespaceAdminsRoleBinding {
			return rb, nil
		}
	}
	return nil, fmt.Errorf("platformobj.NamespaceRBAC has no %s", tenantapi.NamespaceAdminsRoleBinding)
}

// sameBinding reports whether have grants what want does, labeled as want
// (other labels are kept).
func sameBinding(have, want *rbacv1.RoleBinding) bool {
	if have.RoleRef != want.RoleRef || !reflect.DeepEqual(have.Subjects, want.Subjects) {
		return false
	}
	for k, v := range want.Labels {
		if have.Labels[k] != v {
			return false
		}
	}
	return true
}

// asAdmin is an RBAC client impersonating the first of rec's admins, with
// the tenant's and the admins' groups: the RoleBindings it writes are
// judged by the upstream as the tenant's own (zoo-tenant confines them to
// the tenant's namespaces).
func (r *Reconciler) asAdmin(t translate.Tenant, rec *tenantapi.Tenant) (rbacv1client.RbacV1Interface, error) {
	admins := slices.Sorted(slices.Values(rec.Spec.Admins))
	if len(admins) == 0 {
		return nil, errNoAdmins
	}
	cfg := rest.CopyConfig(r.cfg.Upstream)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: t.UpstreamUser(admins[0]), Groups: t.UpstreamGroups(nil, true)}
	c, err := rbacv1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("impersonating the tenant's admin: %w", err)
	}
	return c, nil
}
