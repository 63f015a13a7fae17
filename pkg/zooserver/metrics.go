package zooserver

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// metrics are the server's Prometheus metrics. Label values are bounded:
// tenants are the cluster's (records the platform makes; a deleted
// tenant's series go with it, forgetTenant), verbs and codes
// are the API's, and a resource is a built-in kind's or "custom" — a
// tenant that makes thousands of CRDs does not make thousands of series.
type metrics struct {
	registry       *prometheus.Registry
	requests       *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	inflight       *prometheus.GaugeVec
	watches        *prometheus.GaugeVec
	upstreamErrors *prometheus.CounterVec
	unauthorized   prometheus.Counter
	proxies        prometheus.GaugeFunc
	serve          http.Handler
}

func newMetrics(proxyCount func() int) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zoo", Subsystem: "server", Name: "requests_total",
			Help: "Requests served, by tenant, verb, resource (tenant-side) and HTTP code.",
		}, []string{"tenant", "verb", "resource", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "zoo", Subsystem: "server", Name: "request_duration_seconds",
			Help:    "Latency of requests other than watches, by tenant and verb.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"tenant", "verb"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "zoo", Subsystem: "server", Name: "inflight_requests",
			Help: "Requests being served (watches included), by tenant.",
		}, []string{"tenant"}),
		watches: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "zoo", Subsystem: "server", Name: "open_watches",
			Help: "Watches being served, by tenant.",
		}, []string{"tenant"}),
		upstreamErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zoo", Subsystem: "server", Name: "upstream_errors_total",
			Help: "Upstream requests that failed (no answer, or a 5xx), by tenant.",
		}, []string{"tenant"}),
		unauthorized: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "zoo", Subsystem: "server", Name: "unauthorized_requests_total",
			Help: "Requests refused because their credential names no tenant identity of an existing tenant.",
		}),
	}
	m.proxies = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "zoo", Subsystem: "server", Name: "proxies",
		Help: "Identities whose translating proxy the server holds.",
	}, func() float64 { return float64(proxyCount()) })
	m.registry.MustRegister(m.requests, m.latency, m.inflight, m.watches, m.upstreamErrors, m.unauthorized, m.proxies,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	m.serve = promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
	return m
}

// resourceLabel is the tenant-side resource of info for a label: a kind of
// the kinds table by its resource (and group), anything else "custom";
// non-resource requests are "nonresource". A subresource is named only
// when the request succeeded (code below 400), which only a subresource the
// kind really has can: a tenant that sends every subresource name to every
// kind makes no series of them.
func resourceLabel(info translate.RequestInfo, code int) string {
	if !info.IsResourceRequest {
		return "nonresource"
	}
	if _, ok := translate.LookupKind(info.GroupResource()); !ok {
		return "custom"
	}
	if info.Subresource != "" && (!knownSubresources[info.Subresource] || code >= 400) {
		info.Subresource = "other"
	}
	return resourceName(info) // audit.go
}

// codeLabel is an answer's code for a label: the codes the API server
// answers with, any other "other".
func codeLabel(code int) string {
	if l, ok := codeLabels[code]; ok {
		return l
	}
	return "other"
}

// codeLabels are the label values of the codes the API server answers
// with, made once.
var codeLabels = func() map[int]string {
	m := map[int]string{}
	for _, c := range []int{200, 201, 202, 204, 206, 304, 400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422, 429, 500, 502, 503, 504} {
		m[c] = strconv.Itoa(c)
	}
	return m
}()

// knownSubresources are the built-in kinds' subresources; any other is
// labelled "other".
var knownSubresources = map[string]bool{
	"status": true, "scale": true, "log": true, "exec": true, "attach": true, "portforward": true, "proxy": true,
	"binding": true, "eviction": true, "ephemeralcontainers": true, "resize": true, "token": true, "approval": true,
	"finalize": true,
}

// verbLabel is info's verb, or "other" for a method no Kubernetes client
// sends (a label value must not be the caller's to choose).
func verbLabel(info translate.RequestInfo) string {
	switch info.Verb {
	case "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection",
		"post", "put", "head", "options":
		return info.Verb
	}
	return "other"
}

// observe records a finished request.
func (m *metrics) observe(tenant, verb, resource string, code int, seconds float64) {
	m.requests.WithLabelValues(tenant, verb, resource, codeLabel(code)).Inc()
	if verb != "watch" {
		m.latency.WithLabelValues(tenant, verb).Observe(seconds)
	}
}

// tenantSeriesGrace is how long after a tenant's record is deleted its
// series are deleted once more: a request that was being served then ends
// later and makes its series again.
const tenantSeriesGrace = time.Minute

// forgetTenant deletes the series of a tenant whose record was deleted, now
// and once more after tenantSeriesGrace, so that the series a server holds
// are those of its existing tenants, not of every tenant it ever served.
// (A tenant made again within the grace loses its first minute's counts.)
func (m *metrics) forgetTenant(tenant string) {
	m.deleteTenantSeries(tenant)
	time.AfterFunc(tenantSeriesGrace, func() { m.deleteTenantSeries(tenant) })
}

// deleteTenantSeries deletes every series labeled with tenant.
func (m *metrics) deleteTenantSeries(tenant string) {
	l := prometheus.Labels{"tenant": tenant}
	m.requests.DeletePartialMatch(l)
	m.latency.DeletePartialMatch(l)
	m.inflight.DeletePartialMatch(l)
	m.watches.DeletePartialMatch(l)
	m.upstreamErrors.DeletePartialMatch(l)
}

// countingTransport counts the tenant's failed upstream requests.
type countingTransport struct {
	next   http.RoundTripper
	errors prometheus.Counter
}

// RoundTrip implements http.RoundTripper.
func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil || resp.StatusCode >= 500 {
		c.errors.Inc()
	}
	return resp, err
}
