package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// serverFigures are the figures of the running server the scale workload
// reads, with their units: its RSS and, from its /metrics, its live Go heap,
// goroutines and the tenant identities whose proxy it holds.
var serverFigures = []struct{ name, unit string }{
	{"RSS", "KiB"},
	{serverLiveHeap, "KiB"},
	{"goroutines", "count"},
	{"identities' proxies held", "count"},
}

// serverLiveHeap is the heap the last garbage collection found live: the
// heap goal it set (go_memstats_next_gc_bytes) divided by 1+GOGC/100. The
// heap in use would count the garbage of however long since.
const serverLiveHeap = "Go heap live at its last GC"

// serverGCWait bounds the wait for a garbage collection: the Go runtime
// forces one every 2 minutes.
const serverGCWait = 150 * time.Second

// serverFiguresNow reads serverFigures of the server at ep after its next
// garbage collection, so that its live heap is what it holds now.
func serverFiguresNow(ctx context.Context, e *env, ep *endpoint) (map[string]float64, error) {
	m, err := serverOwnMetrics(ctx, e, ep)
	if err != nil {
		return nil, err
	}
	gcs := gcCount(m)
	deadline := time.Now().Add(serverGCWait)
	for gcCount(m) == gcs {
		if time.Now().After(deadline) {
			logf("scale: warning: the server ran no garbage collection in %s; its live heap is older", serverGCWait)
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
		if m, err = serverOwnMetrics(ctx, e, ep); err != nil {
			return nil, err
		}
	}
	return serverFiguresOf(m, ep), nil
}

// serverFiguresOf reads serverFigures of the server at ep from its metrics
// m and its process: its live heap is the one of its last garbage
// collection before m was scraped.
func serverFiguresOf(m metrics, ep *endpoint) map[string]float64 {
	out := map[string]float64{}
	if rss, _, ok := ep.rssKiB(); ok {
		out["RSS"] = rss
	}
	for name, metric := range map[string]string{"goroutines": "go_goroutines", "identities' proxies held": "zoo_server_proxies"} {
		if v, ok := metricSum(m, metric, nil); ok {
			out[name] = v
		}
	}
	if goal, ok := metricSum(m, "go_memstats_next_gc_bytes", nil); ok {
		gogc, ok := metricSum(m, "go_gc_gogc_percent", nil)
		if !ok {
			gogc = 100 // the default
		}
		out[serverLiveHeap] = goal / (1 + gogc/100) / 1024
	}
	return out
}

// gcCount is the number of garbage collections the Go runtime ran (the
// count of the summary go_gc_duration_seconds), -1 when m has none.
func gcCount(m metrics) float64 {
	family, ok := m["go_gc_duration_seconds"]
	if !ok || len(family.GetMetric()) == 0 {
		return -1
	}
	return float64(family.GetMetric()[0].GetSummary().GetSampleCount())
}

// serverFigureRows turns the serverFigures of both sides into rows.
func serverFigureRows(c config, workload string, few, many map[string]float64) []result {
	var out []result
	for _, f := range serverFigures {
		b, okB := few[f.name]
		s, okS := many[f.name]
		if okB && okS {
			out = append(out, scaleRow(c, workload, f.name, f.unit, b, s))
		}
	}
	return out
}

// serverOwnMetrics scrapes the /metrics of the server at ep as e's cluster
// admin (the server asks the upstream whether the caller may).
func serverOwnMetrics(ctx context.Context, e *env, ep *endpoint) (metrics, error) {
	cfg := &rest.Config{Host: ep.config.Host, TLSClientConfig: rest.TLSClientConfig{CAData: ep.config.CAData,
		CertData: e.cluster.Config.CertData, KeyData: e.cluster.Config.KeyData}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("the server's /metrics: %w", err)
	}
	return parseMetrics(raw)
}
