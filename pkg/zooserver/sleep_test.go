package zooserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// idleRecord is a tenant created at t0 with a sleepAfter of 1h (none when
// after is 0), its shared last activity and sleep state.
func idleRecord(t *testing.T, t0 time.Time, after time.Duration, shared *time.Time, sleep *tenantapi.SleepState) *tenantapi.Tenant {
	t.Helper()
	rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme", CreationTimestamp: metav1.NewTime(t0)}}
	p := policy.Policy{}
	if after > 0 {
		p.SleepAfter = &metav1.Duration{Duration: after}
	}
	require.NoError(t, tenantapi.SetPolicy(rec, p))
	if shared != nil {
		rec.Status.LastActivity = &metav1.Time{Time: *shared}
	}
	rec.Status.Sleep = sleep
	return rec
}

func TestIdleAction(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	flush := maxActivityFlush // a quarter of the hour is more
	for _, tc := range []struct {
		name   string
		after  time.Duration
		shared *time.Time
		sleep  *tenantapi.SleepState
		seen   time.Time
		now    time.Time
		want   int
	}{
		{name: "no sleepAfter: nothing", now: t0.Add(100 * time.Hour), want: actionNone},
		{name: "young tenant", after: time.Hour, now: t0.Add(time.Hour), want: actionNone},
		{name: "idle since its creation, past sleepAfter and the flush", after: time.Hour, now: t0.Add(time.Hour + flush + time.Second), want: actionSleep},
		{name: "seen here a moment ago, not yet shared", after: time.Hour, seen: t0.Add(flush + time.Second), now: t0.Add(flush + time.Second), want: actionShare},
		{name: "seen here but shared recently enough", after: time.Hour, shared: at(time.Hour), seen: t0.Add(time.Hour + flush), now: t0.Add(time.Hour + flush), want: actionNone},
		{name: "another replica shared a recent request", after: time.Hour, shared: at(2 * time.Hour), now: t0.Add(3 * time.Hour), want: actionNone},
		{name: "the shared request is too old", after: time.Hour, shared: at(2 * time.Hour), now: t0.Add(3*time.Hour + flush + time.Second), want: actionSleep},
		{name: "already asleep", after: time.Hour, now: t0.Add(10 * time.Hour),
			sleep: &tenantapi.SleepState{State: tenantapi.SleepStateAsleep}, want: actionNone},
		{name: "woken lately", after: time.Hour, now: t0.Add(10 * time.Hour),
			sleep: &tenantapi.SleepState{State: tenantapi.SleepStateAwake, Since: metav1.NewTime(t0.Add(9 * time.Hour))}, want: actionNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := idleRecord(t, t0, tc.after, tc.shared, tc.sleep)
			assert.Equal(t, tc.want, idleAction(rec, tc.seen, tc.now))
		})
	}
}

// fakeSleeper records the calls of the idle loop.
type fakeSleeper struct {
	mu     sync.Mutex
	slept  []string
	shared map[string]time.Time
}

func (f *fakeSleeper) SleepTenant(_ context.Context, name string, opts tenantctl.SleepOptions) (tenantapi.SleepResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if opts.By == tenantapi.SleptByServer && opts.NoPods {
		f.slept = append(f.slept, name)
	}
	return tenantapi.SleepResult{}, nil
}

func (f *fakeSleeper) RecordActivity(_ context.Context, name string, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shared[name] = at
	return nil
}

func TestIdleSleeperTick(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(2 * time.Hour)
	busy := idleRecord(t, t0, time.Hour, nil, nil)
	idle := idleRecord(t, t0, time.Hour, nil, nil)
	idle.Name = "idle"
	var objs []any
	for _, rec := range []*tenantapi.Tenant{busy, idle} {
		u, err := rec.ToUnstructured()
		require.NoError(t, err)
		objs = append(objs, u, "not a record", &unstructured.Unstructured{Object: map[string]any{"spec": "bad"}})
	}
	f := &fakeSleeper{shared: map[string]time.Time{}}
	s := &idleSleeper{client: f, records: func() []any { return objs }, now: func() time.Time { return now }, seen: map[string]time.Time{}}
	s.touch("acme")
	s.tick(t.Context())
	assert.Equal(t, []string{"idle"}, f.slept)
	assert.Equal(t, map[string]time.Time{"acme": now}, f.shared)
}
