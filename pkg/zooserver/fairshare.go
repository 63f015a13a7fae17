package zooserver

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/fairshare"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// fairShare is the server's per-tenant fair share: one limiter for every
// tenant, all the identities of a tenant sharing its state, with the
// limits of the tenant's record (followed by the informer, so a change
// applies to the next request).
type fairShare struct {
	limiter *fairshare.Limiter
	// throttled counts refusals by reason only: the per-tenant count is
	// zoo_server_requests_total{code="429"}, and a reason label has two
	// values.
	throttled *prometheus.CounterVec
}

func newFairShare(reg prometheus.Registerer) *fairShare {
	f := &fairShare{
		limiter: fairshare.New(clock.RealClock{}, 0),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zoo", Subsystem: "server", Name: "throttled_requests_total",
			Help: "Requests refused with 429 for their tenant's fair share, by reason (rate: the token bucket; inflight: max in-flight).",
		}, []string{"reason"}),
	}
	for _, reason := range []string{fairshare.ReasonRate, fairshare.ReasonInflight} {
		f.throttled.WithLabelValues(reason) // both series exist from the start
	}
	reg.MustRegister(f.throttled)
	return f
}

// admit takes the tenant's fair share for a request, or refuses it (429,
// Retry-After, a Status) and counts it; the ticket's Done ends the hold.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, tenant string, info translate.RequestInfo, start time.Time) (fairshare.Ticket, bool) {
	ticket, ref, ok := s.fair.limiter.Admit(tenant, s.tenants.limits(tenant), fairshare.LongRunning(info, r.URL.RawQuery))
	if ok {
		return ticket, true
	}
	fairshare.WriteRefusal(w, ref)
	s.fair.throttled.WithLabelValues(ref.Reason).Inc()
	s.metrics.observe(tenant, verbLabel(info), resourceLabel(info, http.StatusTooManyRequests), http.StatusTooManyRequests, time.Since(start).Seconds())
	klog.V(2).InfoS("throttled", "tenant", tenant, "reason", ref.Reason, "verb", info.Verb, "resource", resourceName(info))
	return ticket, false
}
