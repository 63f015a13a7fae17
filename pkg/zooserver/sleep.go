package zooserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// sleepTick is how often the idle loop looks at every tenant.
const sleepTick = time.Second

// maxActivityFlush bounds how stale the last activity a replica shares in
// a record may be.
const maxActivityFlush = time.Minute

// sleepClient is what the idle loop calls (tenantctl.Client).
type sleepClient interface {
	SleepTenant(ctx context.Context, name string, opts tenantctl.SleepOptions) (tenantapi.SleepResult, error)
	RecordActivity(ctx context.Context, name string, at time.Time) error
}

// idleSleeper puts a tenant whose policy has a sleepAfter to sleep when no
// replica saw a request of the tenant's for that long, and wakes a tenant
// it put to sleep on the tenant's next request. Each replica remembers
// when it last saw each tenant, and shares it in the record's
// status.lastActivity once it is newer than the record's by a flush
// interval (a quarter of sleepAfter, at most maxActivityFlush); a replica
// sleeps a tenant only once the shared time is older than sleepAfter plus
// that interval, so that no replica sleeps a tenant another served within
// sleepAfter.
type idleSleeper struct {
	client  sleepClient
	records func() []any // the informer's transformed Tenant records
	now     func() time.Time

	mu   sync.Mutex
	seen map[string]time.Time
}

// touch notes a request of tenant's.
func (s *idleSleeper) touch(tenant string) {
	now := s.now()
	s.mu.Lock()
	s.seen[tenant] = now
	s.mu.Unlock()
}

// run looks at every tenant each sleepTick until ctx ends.
func (s *idleSleeper) run(ctx context.Context) {
	t := time.NewTicker(sleepTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.tick(ctx)
		}
	}
}

// tick shares this replica's activity and sleeps the idle tenants.
func (s *idleSleeper) tick(ctx context.Context) {
	for _, obj := range s.records() {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		rec, err := tenantapi.TenantFromUnstructured(u)
		if err != nil || rec.DeletionTimestamp != nil {
			continue
		}
		s.mu.Lock()
		seen := s.seen[rec.Name]
		s.mu.Unlock()
		switch idleAction(rec, seen, s.now()) {
		case actionShare:
			if err := s.client.RecordActivity(ctx, rec.Name, seen); err != nil {
				klog.ErrorS(err, "recording a tenant's last activity", "tenant", rec.Name)
			}
		case actionSleep:
			res, err := s.client.SleepTenant(ctx, rec.Name, tenantctl.SleepOptions{By: tenantapi.SleptByServer, NoPods: true})
			if err != nil {
				klog.ErrorS(err, "putting an idle tenant to sleep", "tenant", rec.Name)
				continue
			}
			klog.InfoS("put an idle tenant to sleep", "tenant", rec.Name, "scaled", len(res.Changed))
		}
	}
}

// Actions of idleAction.
const (
	actionNone = iota
	actionShare
	actionSleep
)

// idleAction decides, for a record and the last request of its tenant this
// replica saw (zero: none), whether to share that time or to sleep the
// tenant. Its sleepAfter is read from the record's policy; the tenant's
// last activity is the latest of what this replica saw, the shared time,
// its creation and its last wake.
func idleAction(rec *tenantapi.Tenant, seen, now time.Time) int {
	pol, err := tenantapi.PolicyOf(rec)
	if err != nil || pol.SleepAfter == nil {
		return actionNone
	}
	after := pol.SleepAfter.Duration
	flush := min(after/4, maxActivityFlush)
	last := rec.CreationTimestamp.Time
	if shared := rec.Status.LastActivity; shared != nil && shared.After(last) {
		last = shared.Time
	}
	if seen.After(last.Add(flush)) {
		return actionShare
	}
	if sl := rec.Status.Sleep; sl != nil {
		if sl.State == tenantapi.SleepStateAsleep {
			return actionNone
		}
		if sl.Since.After(last) {
			last = sl.Since.Time
		}
	}
	if seen.After(last) {
		last = seen
	}
	if now.Sub(last) > after+flush {
		return actionSleep
	}
	return actionNone
}

// wakeIdle wakes tenant before its request when the server put it to
// sleep (any request wakes it; one a user put to sleep is woken by a write
// that may run pods, localproxy.Proxy.wakeFirst), bounded by
// localproxy.WakeTimeout. It returns false when it answered instead.
func (s *Server) wakeIdle(w http.ResponseWriter, r *http.Request, tenant string, p *localproxy.Proxy) bool {
	if s.sleeper == nil {
		return true
	}
	s.sleeper.touch(tenant)
	obj, ok, err := s.tenants.informer.GetStore().GetByKey(tenant)
	if err != nil || !ok {
		return true
	}
	u, _ := obj.(*unstructured.Unstructured)
	state, _, _ := unstructured.NestedString(u.Object, "status", "sleep", "state")
	by, _, _ := unstructured.NestedString(u.Object, "status", "sleep", "by")
	if state != tenantapi.SleepStateAsleep || by != tenantapi.SleptByServer {
		return true
	}
	if err := p.Wake(r.Context()); err != nil {
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
			Reason: metav1.StatusReasonServiceUnavailable, Details: &metav1.StatusDetails{RetryAfterSeconds: 5},
			Message: "tenant " + tenant + " is asleep and could not be woken: " + err.Error()})
		return false
	}
	return true
}
