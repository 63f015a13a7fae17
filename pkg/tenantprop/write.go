package tenantprop

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nsobjects"
)

// copyWriter writes copies as the propagator identity (nsobjects.Writer):
// creates that never overwrite, updates and deletes with the UID and
// resourceVersion of the copy read as preconditions.
type copyWriter struct{ p *Propagator }

func (w copyWriter) Create(ctx context.Context, c Object) error {
	_, err := w.p.dyn.Resource(gvr(c.Resource)).Namespace(c.GetNamespace()).Create(ctx, c.Unstructured, metav1.CreateOptions{FieldManager: FieldManager})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nsobjects.ErrTaken
	case err != nil:
		return fmt.Errorf("create %s %s/%s: %w", c.Resource, c.GetNamespace(), c.GetName(), err)
	}
	return nil
}

// Update rewrites a copy; an immutable one (the update is Invalid) is
// deleted and created anew.
func (w copyWriter) Update(ctx context.Context, c Object) error {
	r := w.p.dyn.Resource(gvr(c.Resource)).Namespace(c.GetNamespace())
	_, err := r.Update(ctx, c.Unstructured, metav1.UpdateOptions{FieldManager: FieldManager})
	if apierrors.IsInvalid(err) {
		err = r.Delete(ctx, c.GetName(), metav1.DeleteOptions{Preconditions: nsobjects.Preconditions(c)})
		if err == nil {
			c.SetResourceVersion("")
			c.SetUID("")
			_, err = r.Create(ctx, c.Unstructured, metav1.CreateOptions{FieldManager: FieldManager})
		}
	}
	switch {
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err):
		return nsobjects.ErrStale
	case err != nil:
		return fmt.Errorf("update %s %s/%s: %w", c.Resource, c.GetNamespace(), c.GetName(), err)
	}
	return nil
}

func (w copyWriter) Delete(ctx context.Context, c Object) error {
	err := w.p.dyn.Resource(gvr(c.Resource)).Namespace(c.GetNamespace()).Delete(ctx, c.GetName(),
		metav1.DeleteOptions{Preconditions: nsobjects.Preconditions(c)})
	switch {
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		return nsobjects.ErrStale
	case err != nil:
		return fmt.Errorf("delete %s %s/%s: %w", c.Resource, c.GetNamespace(), c.GetName(), err)
	}
	return nil
}
