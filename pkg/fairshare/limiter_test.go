package fairshare

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func admitted(t *testing.T, l *Limiter, tenant string, lim Limits, longRunning bool) Ticket {
	t.Helper()
	tk, ref, ok := l.Admit(tenant, lim, longRunning)
	require.True(t, ok, "refused: %+v", ref)
	return tk
}

func refused(t *testing.T, l *Limiter, tenant string, lim Limits, longRunning bool) Refusal {
	t.Helper()
	_, ref, ok := l.Admit(tenant, lim, longRunning)
	require.False(t, ok, "admitted")
	return ref
}

func TestTokenBucket(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	lim := Limits{QPS: 2, Burst: 4}
	for range 4 {
		admitted(t, l, "a", lim, false).Done()
	}
	ref := refused(t, l, "a", lim, false)
	assert.Equal(t, ReasonRate, ref.Reason)
	assert.Equal(t, 500*time.Millisecond, ref.RetryAfter, "half a second refills one token at 2 per second")
	assert.Equal(t, 1, ref.RetryAfterSeconds(), "Retry-After is whole seconds, rounded up")

	clk.SetTime(epoch.Add(500 * time.Millisecond))
	admitted(t, l, "a", lim, false).Done()
	refused(t, l, "a", lim, false)

	clk.SetTime(epoch.Add(time.Hour))
	for range 4 {
		admitted(t, l, "a", lim, false).Done()
	}
	refused(t, l, "a", lim, false)
}

func TestMaxInflight(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	lim := Limits{MaxInflight: 2}
	first := admitted(t, l, "a", lim, false)
	second := admitted(t, l, "a", lim, false)
	ref := refused(t, l, "a", lim, false)
	assert.Equal(t, ReasonInflight, ref.Reason)
	assert.Equal(t, 1, ref.RetryAfterSeconds())
	first.Done()
	third := admitted(t, l, "a", lim, false)
	second.Done()
	third.Done()
	for range 100 { // no rate limit: only what is in flight counts
		admitted(t, l, "a", lim, false).Done()
	}
}

func TestLongRunningHoldsNoSlotButTakesAToken(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	lim := Limits{QPS: 5, Burst: 5, MaxInflight: 1}
	held := admitted(t, l, "a", lim, false)
	for range 3 {
		admitted(t, l, "a", lim, true) // watches beside a full in-flight bound
	}
	assert.Equal(t, ReasonInflight, refused(t, l, "a", lim, false).Reason)
	admitted(t, l, "a", lim, true)
	assert.Equal(t, ReasonRate, refused(t, l, "a", lim, true).Reason, "the sixth start finds no token")
	held.Done()
	assert.Equal(t, ReasonRate, refused(t, l, "a", lim, false).Reason)
}

func TestInflightRefusalSpendsNoToken(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	lim := Limits{QPS: 1, Burst: 2, MaxInflight: 1}
	held := admitted(t, l, "a", lim, false)
	for range 10 {
		assert.Equal(t, ReasonInflight, refused(t, l, "a", lim, false).Reason)
	}
	held.Done()
	admitted(t, l, "a", lim, false).Done() // the second token is still there
	ref := refused(t, l, "a", lim, false)
	assert.Equal(t, ReasonRate, ref.Reason)
	assert.Equal(t, time.Second, ref.RetryAfter)
}

func TestRateRefusalGivesBackTheSlot(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	lim := Limits{QPS: 1, Burst: 1, MaxInflight: 1}
	admitted(t, l, "a", lim, false).Done()
	for range 5 {
		assert.Equal(t, ReasonRate, refused(t, l, "a", lim, false).Reason)
	}
	clk.SetTime(epoch.Add(time.Second))
	admitted(t, l, "a", lim, false).Done() // the slot was not kept by the refusals
}

func TestTenantsDoNotShare(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	lim := Limits{QPS: 1, Burst: 1, MaxInflight: 1}
	held := admitted(t, l, "a", lim, false)
	refused(t, l, "a", lim, false)
	refused(t, l, "a", lim, true)
	admitted(t, l, "b", lim, false).Done()
	held.Done()
}

func TestLimitsChangeApply(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 0)
	admitted(t, l, "a", Limits{QPS: 1, Burst: 1}, false).Done()
	refused(t, l, "a", Limits{QPS: 1, Burst: 1}, false)
	raised := Limits{QPS: 100, Burst: 100}
	clk.SetTime(epoch.Add(100 * time.Millisecond))
	refused(t, l, "a", raised, false) // 0.1 token at the old rate; the new one applies from now
	clk.SetTime(epoch.Add(200 * time.Millisecond))
	for range 10 { // 100 per second refill 10 tokens in 100ms
		admitted(t, l, "a", raised, false).Done()
	}
	refused(t, l, "a", raised, false)
	for range 50 {
		admitted(t, l, "a", Limits{}, false).Done() // the limit removed
	}
	inflight := Limits{MaxInflight: 1}
	held := admitted(t, l, "a", inflight, false)
	refused(t, l, "a", inflight, false)
	held.Done()
}

func TestNoLimitsNoState(t *testing.T) {
	l := New(clocktesting.NewFakePassiveClock(epoch), 0)
	for i := range 100 {
		admitted(t, l, fmt.Sprint("t", i), Limits{}, false).Done()
	}
	assert.Zero(t, l.Len())
}

func TestStateIsBounded(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(epoch)
	l := New(clk, 64)
	lim := Limits{QPS: 10, Burst: 10, MaxInflight: 10}
	t.Run("idle tenants make room", func(t *testing.T) {
		for i := range 1000 {
			admitted(t, l, fmt.Sprint("idle", i), lim, false).Done()
			clk.SetTime(clk.Now().Add(time.Second)) // their buckets refill
			require.LessOrEqual(t, l.Len(), 64)
		}
	})
	t.Run("busy tenants: the least recently used go", func(t *testing.T) {
		var held []Ticket
		for i := range 1000 {
			held = append(held, admitted(t, l, fmt.Sprint("busy", i), lim, false))
			clk.SetTime(clk.Now().Add(time.Millisecond))
			require.LessOrEqual(t, l.Len(), 64)
		}
		// The most recent tenant kept its state: its slot is counted.
		last := fmt.Sprint("busy", 999)
		for range 9 {
			held = append(held, admitted(t, l, last, lim, false))
		}
		assert.Equal(t, ReasonInflight, refused(t, l, last, lim, false).Reason)
		for _, tk := range held {
			tk.Done() // an evicted tenant's ticket gives back to its own old state
		}
	})
}

func TestAdmitAllocatesNothing(t *testing.T) {
	l := New(clocktesting.NewFakePassiveClock(epoch), 0)
	lim := Limits{QPS: 1e6, Burst: 1e6, MaxInflight: 10}
	admitted(t, l, "a", lim, false).Done()
	allocs := testing.AllocsPerRun(1000, func() {
		tk, _, _ := l.Admit("a", lim, false)
		tk.Done()
		_, _, _ = l.Admit("a", lim, true)
	})
	assert.Zero(t, allocs)
}

func TestLimitsOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *policy.RateLimit
		want Limits
	}{
		{"none", nil, Limits{}},
		{"zero", &policy.RateLimit{}, Limits{}},
		{"as written", &policy.RateLimit{QPS: 5, Burst: 10, MaxInflight: 3}, Limits{QPS: 5, Burst: 10, MaxInflight: 3}},
		{"burst below qps is the qps", &policy.RateLimit{QPS: 5, Burst: 1}, Limits{QPS: 5, Burst: 5}},
		{"no burst is the qps", &policy.RateLimit{QPS: 5}, Limits{QPS: 5, Burst: 5}},
		{"burst without qps is nothing", &policy.RateLimit{Burst: 5}, Limits{}},
		{"negative is none", &policy.RateLimit{QPS: -1, Burst: -1, MaxInflight: -1}, Limits{}},
		{"in-flight only", &policy.RateLimit{MaxInflight: 7}, Limits{MaxInflight: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, LimitsOf(tc.in))
		})
	}
}

// TestConcurrentAdmissionsHoldTheBound: admitted requests never exceed the
// in-flight bound however many arrive at once (run with -race).
func TestConcurrentAdmissionsHoldTheBound(t *testing.T) {
	l := New(clocktesting.NewFakePassiveClock(epoch), 4)
	lim := Limits{MaxInflight: 3}
	var inflight, peak [2]atomic.Int32 // per tenant
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			i := g % 2
			for range 500 {
				tk, _, ok := l.Admit(fmt.Sprint("t", i), lim, false)
				if !ok {
					continue
				}
				n := inflight[i].Add(1)
				for p := peak[i].Load(); n > p && !peak[i].CompareAndSwap(p, n); p = peak[i].Load() {
				}
				inflight[i].Add(-1)
				tk.Done()
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, peak[0].Load(), int32(3))
	assert.LessOrEqual(t, peak[1].Load(), int32(3))
	for _, name := range []string{"t0", "t1"} {
		var held []Ticket
		for range 3 {
			held = append(held, admitted(t, l, name, lim, false))
		}
		refused(t, l, name, lim, false) // every slot was given back, none leaked
		for _, tk := range held {
			tk.Done()
		}
	}
}
