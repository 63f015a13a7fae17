package localproxy

import (
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// legWindow is how many legs of a joined list (fanout_list.go) are read from
// the upstream at once. A leg is one namespace-scoped LIST, which the API
// server answers from its watch cache; what a list over many namespaces
// costs is a round trip, and the fixed work of a request, per namespace.
// Read one after another, 200 namespaces of 6 ConfigMaps take 13x one
// namespace of 1200. In flight at once, the round trips overlap: with an
// upstream 1 ms away (BenchmarkProxyListSpread), 300 ms became 65 ms at 16.
// With the API server on the same 2 cores (the scale bench's namespaces
// axis) the legs are bound by CPU instead and the gain is smaller: LIST p50
// ~200 ms one after another, ~130 ms at 4 to 32 in flight, 16 a little
// ahead. More than that only adds goroutines, upstream requests in flight
// and memory (each leg's answer is held until the join reaches it), and a
// page that ends early discards up to legWindow-1 of them.
const legWindow = 16

// joinWindow is the window joinList reads with: legWindow, which the tests
// compare with a window of 1 (the legs one after another).
var joinWindow = legWindow

// legAnswer is one upstream answer of a leg, translated.
type legAnswer struct {
	// page is a 200's answer, translated; failed, instead, why it could
	// not be.
	page   *translate.ListPage
	failed error
	code   int
	body   []byte
	err    error
	// items is how many items (or rows) the upstream answered, and more
	// whether it gave a continue token: what tells whether an answer read
	// ahead with a larger limit is the answer of the exact request.
	items int64
	more  bool
}

// legCall is a leg read ahead of the join.
type legCall struct {
	leg   int
	limit int64 // the limit it was asked with; 0: none
	done  chan struct{}
	ans   legAnswer
}

// legReader reads the first pages of the legs of a joined list ahead of the
// join, in leg order, at most size at once, and hands them out in leg order.
// It is used by one goroutine (the join's); the reads run on their own.
type legReader struct {
	ctx    context.Context
	cancel context.CancelFunc
	size   int
	n      int
	next   int        // the next leg to start
	calls  []*legCall // started and not yet taken, in leg order
	wg     sync.WaitGroup
	// ask returns the upstream request of leg i's first page asking for
	// limit items (0: no limit).
	ask func(i int, limit int64) (string, url.Values)
	// read sends one request upstream.
	read func(ctx context.Context, path string, q url.Values) legAnswer
}

func newLegReader(ctx context.Context, size, first, n int, ask func(int, int64) (string, url.Values), read func(context.Context, string, url.Values) legAnswer) *legReader {
	ctx, cancel := context.WithCancel(ctx)
	return &legReader{ctx: ctx, cancel: cancel, size: size, n: n, next: first, ask: ask, read: read}
}

// take returns the answer of leg i (the join's next leg) asked with limit.
// Before it waits, it starts legs after i up to the window, if ahead: the
// request of a leg must not depend on an answer still to come (the
// resourceVersion of the first one). A leg started ahead was asked with the
// limit that was then still missing, which is at least the limit it is
// taken with; its answer is used only when the exact request's answer is
// the same: asked with that very limit, or no limit, or complete (no
// continue) with fewer items than either limit. Otherwise the leg is read
// again, with the exact limit.
func (lr *legReader) take(i int, limit int64, ahead bool) legAnswer {
	lr.fill(i, limit, ahead)
	c := lr.calls[0]
	lr.calls = lr.calls[1:]
	if c.leg != i {
		panic("legReader: legs taken out of order")
	}
	<-c.done
	if c.limit == limit || (c.ans.err == nil && c.ans.code == http.StatusOK && !c.ans.more && c.ans.items < limit) {
		return c.ans
	}
	path, q := lr.ask(i, limit)
	return lr.read(lr.ctx, path, q)
}

// fill starts legs up to the window: leg i (the join's next) always, the
// ones after it only if ahead.
func (lr *legReader) fill(i int, limit int64, ahead bool) {
	for lr.next < lr.n && len(lr.calls) < lr.size && (lr.next == i || ahead) {
		c := &legCall{leg: lr.next, limit: limit, done: make(chan struct{})}
		path, q := lr.ask(c.leg, limit)
		lr.calls = append(lr.calls, c)
		lr.next++
		lr.wg.Add(1)
		go func() {
			defer lr.wg.Done()
			defer close(c.done)
			c.ans = lr.read(lr.ctx, path, q)
		}()
	}
}

// close cancels the legs still in flight, whose answers nobody will take,
// and waits until their reads are over.
func (lr *legReader) close() {
	lr.cancel()
	lr.wg.Wait()
	lr.calls = nil
}
