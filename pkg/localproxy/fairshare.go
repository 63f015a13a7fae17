package localproxy

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/fairshare"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// fairShareTTL bounds how stale the limits `serve` enforces may be: the
// tenant's record is read again, in the background, once they are older.
const fairShareTTL = 10 * time.Second

// fairShare is the fair share of a proxy served by ServeHTTP (`kubectl zoo
// serve`): the limits of the tenant's record (spec.policy.rateLimit), read
// with the proxy's own identity. A server in front of the proxy
// (ServeAuthenticated) enforces its tenants' shares itself.
type fairShare struct {
	limiter *fairshare.Limiter

	mu      sync.Mutex
	limits  fairshare.Limits
	readAt  time.Time // zero until the first read
	reading bool
	read    func(context.Context) (fairshare.Limits, error)
}

func newFairShare(read func(context.Context) (fairshare.Limits, error)) *fairShare {
	return &fairShare{limiter: fairshare.New(clock.RealClock{}, 1), read: read}
}

// current returns the limits to enforce: read at the first request (the
// requests that come meanwhile wait for it), then again in the background
// once older than fairShareTTL (requests meanwhile get the limits read
// last). When the record cannot be read, the last limits stay (none before
// a first read) and the read is tried again after fairShareTTL.
func (f *fairShare) current() fairshare.Limits {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readAt.IsZero() {
		f.store(f.readOnce())
	} else if time.Since(f.readAt) >= fairShareTTL && !f.reading {
		f.reading = true
		go func() {
			limits, err := f.readOnce()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.store(limits, err)
			f.reading = false
		}()
	}
	return f.limits
}

func (f *fairShare) readOnce() (fairshare.Limits, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return f.read(ctx)
}

// store keeps what a read found (f.mu held).
func (f *fairShare) store(limits fairshare.Limits, err error) {
	f.readAt = time.Now()
	if err != nil {
		klog.InfoS("cannot read the tenant's fair share; the last one read stays", "err", err)
		return
	}
	f.limits = limits
}

// readLimits reads the tenant's effective limits from its record; a tenant
// without a record has none.
func (p *Proxy) readLimits(ctx context.Context) (fairshare.Limits, error) {
	rec, err := p.tenantRecord(ctx) // tenant_record.go
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return fairshare.Limits{}, nil
	}
	if err != nil {
		return fairshare.Limits{}, err
	}
	pol, err := tenantapi.PolicyOf(rec)
	if err != nil {
		// A record edited by hand: what can be enforced of its rate limit
		// still is (fairshare.LimitsOf).
		klog.ErrorS(err, "invalid tenant policy", "tenant", p.tenant.Name())
	}
	return fairshare.LimitsOf(pol.RateLimit), nil
}

// admit takes the tenant's fair share for a request (when Config.FairShare
// asks for one), or answers 429 with Retry-After and a Status; the ticket's
// Done ends the hold.
func (p *Proxy) admit(w http.ResponseWriter, r *http.Request) (fairshare.Ticket, bool) {
	if p.fair == nil {
		return fairshare.Ticket{}, true
	}
	info := translate.ParseRequestInfo(r.Method, r.URL.Path, r.URL.Query())
	ticket, ref, ok := p.fair.limiter.Admit(p.tenant.Name(), p.fair.current(), fairshare.LongRunning(info, r.URL.RawQuery))
	if !ok {
		fairshare.WriteRefusal(w, ref)
		klog.V(2).InfoS("throttled", "tenant", p.tenant.Name(), "reason", ref.Reason, "verb", info.Verb)
	}
	return ticket, ok
}
