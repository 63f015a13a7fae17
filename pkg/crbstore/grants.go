package crbstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// parallelism bounds the concurrent upstream writes of one grant (one per
// tenant namespace).
const parallelism = 8

// maxRounds bounds how often a grant starts over because the stored
// bindings changed while it wrote their RoleBindings.
const maxRounds = 5

// Grants writes and removes the RoleBindings that grant a tenant's stored
// ClusterRoleBindings in its namespaces.
//
// Writers race: an update and a delete (or two updates) of one binding, or
// a new namespace and a delete, may write RoleBindings in any order. So
// every grant ends by reading the stored bindings again and starts over
// (at most maxRounds times) if they changed meanwhile; a binding that is
// gone is revoked. Whoever writes last thus leaves the RoleBindings of what
// is stored, and a deleted binding grants nothing after its delete returns
// and every grant that began before it has returned.
type Grants struct {
	// Tenant owns the bindings.
	Tenant translate.Tenant
	// AsTenant impersonates the tenant identity: every RoleBinding is
	// written with it, so RBAC's escalation checks and admission judge them
	// as any tenant RoleBinding.
	AsTenant rbacv1client.RbacV1Interface
	// Own is the caller's own identity; it reads the stored bindings (the
	// tenant identity need not be allowed to list them).
	Own rbacv1client.RbacV1Interface
	// Namespaces lists the tenant's upstream namespaces.
	Namespaces func(ctx context.Context) ([]string, error)
}

// Materialize grants a stored binding (as the upstream answered its write)
// in every namespace of the tenant.
func (g *Grants) Materialize(ctx context.Context, stored *rbacv1.ClusterRoleBinding) error {
	namespaces, err := g.Namespaces(ctx)
	if err != nil {
		return err
	}
	for round := 1; ; round++ {
		err := forEach(ctx, namespaces, func(ctx context.Context, ns string) error {
			rb, err := Materialize(g.Tenant, stored, ns)
			if err != nil {
				return err
			}
			return g.apply(ctx, rb)
		})
		if err != nil {
			return err
		}
		cur, err := g.Own.ClusterRoleBindings().Get(ctx, stored.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || (err == nil && !g.isStored(cur)):
			return g.Revoke(ctx, stored.Name)
		case err != nil:
			return fmt.Errorf("reading ClusterRoleBinding %s again: %w", stored.Name, err)
		case cur.ResourceVersion == stored.ResourceVersion:
			return nil
		case round == maxRounds:
			return fmt.Errorf("ClusterRoleBinding %s kept changing while its RoleBindings were written", stored.Name)
		}
		stored = cur
	}
}

// MaterializeInto grants every stored binding of the tenant in ns, a
// namespace the tenant has just created.
func (g *Grants) MaterializeInto(ctx context.Context, ns string) error {
	applied := map[string]string{} // binding name → resourceVersion granted
	for round := 1; ; round++ {
		crbs, err := g.stored(ctx)
		if err != nil {
			return err
		}
		var errs []error
		live := map[string]string{}
		for i := range crbs {
			crb := &crbs[i]
			live[crb.Name] = crb.ResourceVersion
			if rv, ok := applied[crb.Name]; ok && rv == crb.ResourceVersion {
				continue
			}
			rb, err := Materialize(g.Tenant, crb, ns)
			if err == nil {
				err = g.apply(ctx, rb)
			}
			errs = append(errs, err)
		}
		changed := len(live) != len(applied)
		for name, rv := range applied {
			if live[name] != rv {
				changed = true
			}
			if _, ok := live[name]; !ok {
				errs = append(errs, ignoreGone(g.AsTenant.RoleBindings(ns).Delete(ctx, RoleBindingName(name), metav1.DeleteOptions{})))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if round > 1 && !changed {
			return nil
		}
		if round == maxRounds {
			return fmt.Errorf("the tenant's ClusterRoleBindings kept changing while their RoleBindings were written in %s", ns)
		}
		applied = live
	}
}

// Revoke deletes the RoleBindings of the binding crbName (upstream name) in
// every namespace of the tenant.
func (g *Grants) Revoke(ctx context.Context, crbName string) error {
	namespaces, err := g.Namespaces(ctx)
	if err != nil {
		return err
	}
	sel := metav1.ListOptions{LabelSelector: MaterializedFromLabel + "=" + LabelValue(crbName)}
	return forEach(ctx, namespaces, func(ctx context.Context, ns string) error {
		return ignoreGone(g.AsTenant.RoleBindings(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, sel))
	})
}

// Prune deletes the materialized RoleBindings whose binding no longer
// exists (after a deletecollection).
func (g *Grants) Prune(ctx context.Context) error {
	crbs, err := g.stored(ctx)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, crb := range crbs {
		live[LabelValue(crb.Name)] = true
	}
	namespaces, err := g.Namespaces(ctx)
	if err != nil {
		return err
	}
	return forEach(ctx, namespaces, func(ctx context.Context, ns string) error {
		list, err := g.AsTenant.RoleBindings(ns).List(ctx, metav1.ListOptions{LabelSelector: MaterializedFromLabel})
		if err != nil {
			return ignoreGone(err)
		}
		var errs []error
		for _, rb := range list.Items {
			if !live[rb.Labels[MaterializedFromLabel]] {
				errs = append(errs, ignoreGone(g.AsTenant.RoleBindings(ns).Delete(ctx, rb.Name, metav1.DeleteOptions{})))
			}
		}
		return errors.Join(errs...)
	})
}

// stored lists the tenant's stored bindings (labeled as the tenant's, named
// in its prefix, with the subjects annotation).
func (g *Grants) stored(ctx context.Context) ([]rbacv1.ClusterRoleBinding, error) {
	list, err := g.Own.ClusterRoleBindings().List(ctx, metav1.ListOptions{LabelSelector: translate.TenantLabel + "=" + g.Tenant.Name()})
	if err != nil {
		return nil, fmt.Errorf("listing the tenant's ClusterRoleBindings: %w", err)
	}
	out := list.Items[:0]
	for i := range list.Items {
		if g.isStored(&list.Items[i]) {
			out = append(out, list.Items[i])
		}
	}
	return out, nil
}

// isStored reports whether crb is a stored binding of the tenant.
func (g *Grants) isStored(crb *rbacv1.ClusterRoleBinding) bool {
	_, annotated := crb.Annotations[SubjectsAnnotation]
	return annotated && crb.Labels[translate.TenantLabel] == g.Tenant.Name() && g.Tenant.Owns(crb.Name)
}

// apply creates rb, or brings an existing one in line with it (a changed
// roleRef, which is immutable, means delete and create again).
func (g *Grants) apply(ctx context.Context, rb *rbacv1.RoleBinding) error {
	client := g.AsTenant.RoleBindings(rb.Namespace)
	_, err := client.Create(ctx, rb, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return ignoreTerminating(err)
	}
	cur, err := client.Get(ctx, rb.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if cur.RoleRef != rb.RoleRef {
		if err := ignoreGone(client.Delete(ctx, rb.Name, metav1.DeleteOptions{})); err != nil {
			return err
		}
		_, err := client.Create(ctx, rb, metav1.CreateOptions{})
		return err
	}
	if reflect.DeepEqual(cur.Subjects, rb.Subjects) && reflect.DeepEqual(cur.Labels, rb.Labels) {
		return nil
	}
	rb = rb.DeepCopy()
	rb.ResourceVersion = cur.ResourceVersion
	_, err = client.Update(ctx, rb, metav1.UpdateOptions{})
	return err
}

// forEach runs fn for each namespace, a few at a time, and joins the errors.
func forEach(ctx context.Context, namespaces []string, fn func(context.Context, string) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelism)
	errs := make([]error, len(namespaces))
	for i, ns := range namespaces {
		g.Go(func() error {
			if err := fn(ctx, ns); err != nil {
				errs[i] = fmt.Errorf("namespace %s: %w", ns, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

// ignoreGone treats a 404 (the namespace or the object went away) as done.
func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// ignoreTerminating treats a namespace that is being deleted (or already
// gone) as one that needs no RoleBinding.
func ignoreTerminating(err error) error {
	if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return nil
	}
	return ignoreGone(err)
}
