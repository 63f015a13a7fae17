package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// apiserverMetrics scrapes the API server's /metrics as the cluster admin.
func apiserverMetrics(ctx context.Context, e *env) (metrics, error) {
	raw, err := e.admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	return parseMetrics(raw)
}

// etcdMetrics scrapes etcd's /metrics, served on its client URL.
func etcdMetrics(ctx context.Context, e *env) (metrics, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.cluster.EtcdServer+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("etcd /metrics: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("etcd /metrics: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("etcd /metrics: %s: %s", resp.Status, raw)
	}
	return parseMetrics(raw)
}

// metrics are the metric families of one scrape, by name.
type metrics map[string]*dto.MetricFamily

// parseMetrics reads the Prometheus text format (with the parser the
// Kubernetes metrics test utilities use).
func parseMetrics(raw []byte) (metrics, error) {
	var p expfmt.TextParser
	m, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	return m, nil
}

// metricSum adds up the gauge, counter or untyped samples of the named
// metric whose labels hold every pair of match; ok is false when the metric
// is not there at all.
func metricSum(m metrics, name string, match map[string]string) (sum float64, ok bool) {
	family, ok := m[name]
	if !ok {
		return 0, false
	}
	for _, s := range family.GetMetric() {
		found := 0
		for _, l := range s.GetLabel() {
			if want, ok := match[l.GetName()]; ok && want == l.GetValue() {
				found++
			}
		}
		if found == len(match) {
			sum += s.GetGauge().GetValue() + s.GetCounter().GetValue() + s.GetUntyped().GetValue()
		}
	}
	return sum, true
}

// upstreamWatches counts the watches the API server is serving now, all
// clients together (the gauge apiserver_longrunning_requests, verb WATCH).
func upstreamWatches(ctx context.Context, e *env) (float64, error) {
	m, err := apiserverMetrics(ctx, e)
	if err != nil {
		return 0, err
	}
	n, ok := metricSum(m, "apiserver_longrunning_requests", map[string]string{"verb": "WATCH"})
	if !ok {
		return 0, fmt.Errorf("kube-apiserver serves no apiserver_longrunning_requests")
	}
	return n, nil
}

// compactEtcd compacts etcd's history up to its current revision through
// the v3 JSON gateway, so that its database holds only live objects and the
// sizes of two clusters compare what they store rather than how much each
// has churned since the API server's last compaction.
func compactEtcd(ctx context.Context, e *env) error {
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := etcdPost(ctx, e, "/v3/maintenance/status", map[string]any{}, &status); err != nil {
		return err
	}
	if status.Header.Revision == "" {
		return fmt.Errorf("etcd status carries no revision")
	}
	return etcdPost(ctx, e, "/v3/kv/compaction", map[string]any{"revision": status.Header.Revision, "physical": true}, nil)
}

func etcdPost(ctx context.Context, e *env, path string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cluster.EtcdServer+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", path, resp.Status, raw)
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(raw, into)
}
