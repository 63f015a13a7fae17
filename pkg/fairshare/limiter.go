package fairshare

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// DefaultMaxTenants bounds the tenants whose state a Limiter holds when New
// is given no bound: far more than are busy at once. Only tenants that have
// limits and sent a request get a state; an idle one (no request in flight,
// its bucket full) is the same as none and is dropped first.
const DefaultMaxTenants = 16384

// Reasons a request is refused; they label the server's throttled-requests
// metric, so there are exactly these two.
const (
	// ReasonRate is a refusal by the token bucket (qps/burst).
	ReasonRate = "rate"
	// ReasonInflight is a refusal by the in-flight bound.
	ReasonInflight = "inflight"
)

// inflightRetryAfter is what a request refused for the in-flight bound is
// told to wait: requests in flight usually end within a second.
const inflightRetryAfter = time.Second

// Limiter holds the fair-share state of many tenants. It is safe for
// concurrent use.
type Limiter struct {
	clock      clock.PassiveClock
	maxTenants int

	mu      sync.RWMutex
	tenants map[string]*bucket
}

// bucket is one tenant's state.
type bucket struct {
	tokens   *rate.Limiter // safe for concurrent use
	inflight atomic.Int32
	lastUsed atomic.Int64 // UnixNano of the last Admit

	mu     sync.Mutex // guards limits (and changing tokens' limits)
	limits Limits
}

// New returns a Limiter on clk (clock.RealClock{} in production) holding at
// most maxTenants tenants' state (DefaultMaxTenants when not positive).
func New(clk clock.PassiveClock, maxTenants int) *Limiter {
	if maxTenants <= 0 {
		maxTenants = DefaultMaxTenants
	}
	return &Limiter{clock: clk, maxTenants: maxTenants, tenants: map[string]*bucket{}}
}

// Ticket is an admitted request's hold on its tenant's state: call Done when
// the request ends.
type Ticket struct{ b *bucket }

// Done gives back the in-flight slot the request held, if any.
func (t Ticket) Done() {
	if t.b != nil {
		t.b.inflight.Add(-1)
	}
}

// Refusal says why a request was refused and when to retry.
type Refusal struct {
	// Reason is ReasonRate or ReasonInflight.
	Reason string
	// RetryAfter is how long to wait: until the bucket holds a token, or
	// inflightRetryAfter.
	RetryAfter time.Duration
	// Limits are the tenant's limits, for the message.
	Limits Limits
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1
// (the unit of the Retry-After header).
func (r Refusal) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(r.RetryAfter.Seconds())))
}

// Admit decides whether tenant may start a request under lim. A request that
// is not long-running holds an in-flight slot until the ticket's Done; a
// long-running one only takes a token. When ok is false the request must be
// refused with ref (see WriteRefusal); there is nothing to give back.
func (l *Limiter) Admit(tenant string, lim Limits, longRunning bool) (t Ticket, ref Refusal, ok bool) {
	if lim.None() {
		return Ticket{}, Refusal{}, true
	}
	now := l.clock.Now()
	b := l.bucketOf(tenant, lim, now)
	b.lastUsed.Store(now.UnixNano())
	b.setLimits(lim, now)
	held := false
	if !longRunning {
		if !b.acquire(lim.MaxInflight) {
			return Ticket{}, Refusal{Reason: ReasonInflight, RetryAfter: inflightRetryAfter, Limits: lim}, false
		}
		held = true
	}
	if lim.QPS > 0 && !b.tokens.AllowN(now, 1) {
		if held {
			b.inflight.Add(-1)
		}
		return Ticket{}, Refusal{Reason: ReasonRate, RetryAfter: untilToken(b.tokens, lim, now), Limits: lim}, false
	}
	if !held {
		return Ticket{}, Refusal{}, true
	}
	return Ticket{b: b}, Refusal{}, true
}

// acquire takes an in-flight slot unless max (0: no bound) are taken. Slots
// are counted even without a bound, so that a bound set later counts the
// requests already in flight.
func (b *bucket) acquire(limit int32) bool {
	for {
		n := b.inflight.Load()
		if limit > 0 && n >= limit {
			return false
		}
		if b.inflight.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// setLimits follows a change of the tenant's limits (its record changed).
func (b *bucket) setLimits(lim Limits, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limits == lim {
		return
	}
	b.tokens.SetLimitAt(now, lim.rate())
	b.tokens.SetBurstAt(now, int(lim.Burst))
	b.limits = lim
}

// untilToken is how long until the bucket holds one token.
func untilToken(tokens *rate.Limiter, lim Limits, now time.Time) time.Duration {
	missing := 1 - tokens.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(lim.QPS) * float64(time.Second))
}

// bucketOf returns tenant's state, made (full) if it has none.
func (l *Limiter) bucketOf(tenant string, lim Limits, now time.Time) *bucket {
	l.mu.RLock()
	b, ok := l.tenants[tenant]
	l.mu.RUnlock()
	if ok {
		return b
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.tenants[tenant]; ok {
		return b
	}
	if len(l.tenants) >= l.maxTenants {
		l.evict(now)
	}
	b = &bucket{tokens: rate.NewLimiter(lim.rate(), int(lim.Burst)), limits: lim}
	l.tenants[tenant] = b
	return b
}

// Len is the number of tenants whose state is held.
func (l *Limiter) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.tenants)
}
