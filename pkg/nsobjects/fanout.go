package nsobjects

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// PerNamespace runs read on each of namespaces, at most limit at once, and
// returns the results in the order of namespaces. The first error cancels
// the others' context and is returned: a reconcile that cannot see a
// namespace's objects decides nothing.
func PerNamespace[T any](ctx context.Context, namespaces []string, limit int, read func(ctx context.Context, ns string) (T, error)) ([]T, error) {
	out := make([]T, len(namespaces))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(limit, 1))
	for i, ns := range namespaces {
		g.Go(func() error {
			v, err := read(gctx, ns)
			out[i] = v
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
