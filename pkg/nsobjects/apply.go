package nsobjects

import (
	"context"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrStale is what a Writer returns (wrapped or not) when the object it
// was to update or delete changed or went meanwhile (a precondition
// failed): the write is left to the next reconcile, which reads it anew.
var ErrStale = errors.New("the object changed meanwhile")

// ErrTaken is what a Writer returns (wrapped or not) when a create finds
// an object in the place: it is never overwritten, and the caller is told
// (Result.Taken).
var ErrTaken = errors.New("an object of that name is there")

// Writer makes a plan's writes upstream as the identity the reconciler
// writes as, and in its way (preconditions, server-side apply). Each
// method translates a refusal of the API server that is not a failure into
// ErrStale or ErrTaken.
type Writer interface {
	Create(ctx context.Context, o Object) error
	Update(ctx context.Context, o Object) error
	Delete(ctx context.Context, o Object) error
}

// Result counts what Apply wrote, and lists the creates refused with
// ErrTaken, in plan order.
type Result struct {
	Created, Updated, Deleted int
	Taken                     []Object
}

// Apply carries plan out through w, at most limit writes at once: the
// creates, then the updates, then the deletes. A failed write does not
// cancel the others; every failure is returned, joined, in plan order.
func Apply(ctx context.Context, plan Plan, w Writer, limit int) (Result, error) {
	var res Result
	created, errC := phase(ctx, plan.Create, w.Create, limit)
	for i, err := range errC {
		if errors.Is(err, ErrTaken) {
			res.Taken, errC[i] = append(res.Taken, plan.Create[i]), nil
		}
	}
	updated, errU := phase(ctx, plan.Update, w.Update, limit)
	deleted, errD := phase(ctx, plan.Delete, w.Delete, limit)
	res.Created, res.Updated, res.Deleted = created, updated, deleted
	return res, errors.Join(slices.Concat(errC, errU, errD)...)
}

// phase runs write on every object of objs, limit at once, and returns how
// many were written and each one's error (ErrStale ones cleared).
func phase(ctx context.Context, objs []Object, write func(context.Context, Object) error, limit int) (int, []error) {
	errs := make([]error, len(objs))
	var g errgroup.Group
	g.SetLimit(max(limit, 1))
	for i, o := range objs {
		g.Go(func() error {
			errs[i] = write(ctx, o)
			return nil
		})
	}
	_ = g.Wait()
	n := 0
	for i, err := range errs {
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrStale):
			errs[i] = nil
		}
	}
	return n, errs
}

// Preconditions are o's UID and resourceVersion, as a delete's
// preconditions: the object as read, not one changed or made anew since.
func Preconditions(o Object) *metav1.Preconditions {
	uid, rv := o.GetUID(), o.GetResourceVersion()
	return &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}
}
