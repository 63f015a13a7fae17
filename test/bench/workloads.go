package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// workload measures one thing on every endpoint.
type workload struct {
	name string
	run  func(ctx context.Context, c config, e *env) ([]result, error)
}

var workloads = []workload{
	{"get", runGet},
	{"list", runList},
	{"create", runCreate},
	{"watch", runWatch},
	{"watches-open", runOpenWatches},
	{"flood", runFlood},
}

// eachRep runs measure for every endpoint, reps times, interleaving the
// endpoints so that they share the machine's noise alike, and returns the
// medians of each named figure per endpoint.
func eachRep(ctx context.Context, c config, e *env, measure func(ctx context.Context, ep *endpoint, rep int) (map[string]float64, error)) (map[string]map[string]float64, error) {
	samples := map[string]map[string][]float64{}
	for rep := range c.reps {
		for _, ep := range e.endpoints {
			figs, err := measure(ctx, ep, rep)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ep.name, err)
			}
			for k, v := range figs {
				if samples[k] == nil {
					samples[k] = map[string][]float64{}
				}
				samples[k][ep.name] = append(samples[k][ep.name], v)
			}
		}
	}
	return medianOf(samples), nil
}

// medianOf returns the median of every figure's samples per endpoint.
func medianOf(samples map[string]map[string][]float64) map[string]map[string]float64 {
	medians := map[string]map[string]float64{}
	for k, byEp := range samples {
		medians[k] = map[string]float64{}
		for ep, vs := range byEp {
			medians[k][ep] = median(vs)
		}
	}
	return medians
}

// eachRound runs one timed operation per endpoint, n rounds, and returns the
// durations per endpoint. Within a round the endpoints take turns, starting
// one further each round, so that no endpoint always goes first and all of
// them sample the same moments of the machine's noise.
func eachRound(e *env, n int, op func(ep *endpoint, i int) (time.Duration, error)) (map[string][]time.Duration, error) {
	out := map[string][]time.Duration{}
	for i := range n {
		for k := range e.endpoints {
			ep := e.endpoints[(i+k)%len(e.endpoints)]
			d, err := op(ep, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ep.name, err)
			}
			out[ep.name] = append(out[ep.name], d)
		}
	}
	return out, nil
}

func results(workload string, medians map[string]map[string]float64, metrics ...result) []result {
	var out []result
	for _, m := range metrics {
		m.Workload = workload
		for ep, v := range medians[m.Metric] {
			m.set(ep, v)
		}
		out = append(out, m)
	}
	return out
}

func configMap(name string, dataBytes int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"payload": strings.Repeat("x", dataBytes)},
	}
}

// ensureNamespace creates a tenant namespace through the translating proxy,
// as a tenant would, so that it gets the tenant's rights.
func ensureNamespace(ctx context.Context, e *env, local string) error {
	cs, err := e.endpoint("proxied").client()
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: local}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", local, err)
	}
	return nil
}

// fill creates n ConfigMaps in the upstream namespace ns with 16 clients.
func fill(ctx context.Context, cs kubernetes.Interface, ns, prefix string, n, dataBytes int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap(fmt.Sprintf("%s-%05d", prefix, i), dataBytes), metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// runGet measures sequential GET latency, the endpoints taking turns request
// by request (eachRound), then GET throughput with many clients, one endpoint
// at a time.
func runGet(ctx context.Context, c config, e *env) ([]result, error) {
	if _, err := e.admin.CoreV1().ConfigMaps(benchTenant+"-default").Create(ctx, configMap("get-me", 256), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	gets := map[string]func() error{}
	for _, ep := range e.endpoints {
		cs, err := ep.client()
		if err != nil {
			return nil, err
		}
		gets[ep.name] = func() error {
			_, err := cs.CoreV1().ConfigMaps(ep.ns("default")).Get(ctx, "get-me", metav1.GetOptions{})
			return err
		}
		for range 50 { // warm up connections
			if err := gets[ep.name](); err != nil {
				return nil, fmt.Errorf("%s: %w", ep.name, err)
			}
		}
	}
	samples := map[string]map[string][]float64{"p50": {}, "p99": {}}
	for range c.reps {
		lat, err := eachRound(e, c.getRequests, func(ep *endpoint, _ int) (time.Duration, error) {
			t0 := time.Now()
			err := gets[ep.name]()
			return time.Since(t0), err
		})
		if err != nil {
			return nil, err
		}
		for ep, l := range lat {
			samples["p50"][ep] = append(samples["p50"][ep], ms(percentile(l, 50)))
			samples["p99"][ep] = append(samples["p99"][ep], ms(percentile(l, 99)))
		}
	}
	medians, err := eachRep(ctx, c, e, func(ctx context.Context, ep *endpoint, rep int) (map[string]float64, error) {
		get := gets[ep.name]
		if rep == 0 {
			defer ep.profileWorkload(ctx, c, "get", max(1, int(c.getDuration.Seconds())-1))()
		}
		cpu0, measured := ep.cpuSeconds()
		var done atomic.Int64
		var failed atomic.Value
		deadline := time.Now().Add(c.getDuration)
		var wg sync.WaitGroup
		for range c.getClients {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if err := get(); err != nil {
						failed.Store(err)
						return
					}
					done.Add(1)
				}
			})
		}
		wg.Wait()
		if err, _ := failed.Load().(error); err != nil {
			return nil, err
		}
		figs := map[string]float64{"throughput": float64(done.Load()) / c.getDuration.Seconds()}
		if cpu1, ok := ep.cpuSeconds(); ok && measured && done.Load() > 0 {
			figs["proxy CPU per GET"] = (cpu1 - cpu0) * 1e6 / float64(done.Load())
		}
		return figs, nil
	})
	if err != nil {
		return nil, err
	}
	for k, v := range medianOf(samples) {
		medians[k] = v
	}
	return results("GET one ConfigMap", medians,
		result{Metric: "p50", Unit: "ms"},
		result{Metric: "p99", Unit: "ms"},
		result{Metric: "throughput", Unit: fmt.Sprintf("req/s (%d clients)", c.getClients), HigherIsBetter: true},
		result{Metric: "proxy CPU per GET", Unit: "µs"},
	), nil
}

func runList(ctx context.Context, c config, e *env) ([]result, error) {
	small := c.listItems / 10
	for _, size := range []struct {
		ns string
		n  int
	}{{"list-small", small}, {"list", c.listItems}} {
		if err := ensureNamespace(ctx, e, size.ns); err != nil {
			return nil, err
		}
		if err := fill(ctx, e.admin, benchTenant+"-"+size.ns, "cm", size.n, 512); err != nil {
			return nil, err
		}
	}
	list := func(ctx context.Context, ep *endpoint, ns, contentType string, want int) (time.Duration, error) {
		cfg := rest.CopyConfig(ep.config)
		cfg.QPS, cfg.Burst = -1, 0
		cfg.AcceptContentTypes = contentType
		cfg.ContentType = contentType
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		l, err := cs.CoreV1().ConfigMaps(ep.ns(ns)).List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		took := time.Since(t0)
		// Besides ours, every namespace holds kube-root-ca.crt.
		got := 0
		for _, cm := range l.Items {
			if cm.Labels["app"] == "bench" {
				got++
			}
		}
		if got != want {
			return 0, fmt.Errorf("LIST %s returned %d bench items, want %d", ns, got, want)
		}
		return took, nil
	}
	medians, err := eachRep(ctx, c, e, func(ctx context.Context, ep *endpoint, _ int) (map[string]float64, error) {
		figs := map[string]float64{}
		smallTime, err := list(ctx, ep, "list-small", runtime.ContentTypeJSON, small)
		if err != nil {
			return nil, err
		}
		figs["wall time, JSON, 1/10 size"] = ms(smallTime)
		if _, peak, ok := ep.rssKiB(); ok {
			figs["proxy peak RSS after the 1/10-size list"] = peak / 1024
		}
		for _, ct := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
			d, err := list(ctx, ep, "list", ct, c.listItems)
			if err != nil {
				return nil, err
			}
			figs["wall time, "+ct] = ms(d)
		}
		if _, peak, ok := ep.rssKiB(); ok {
			figs["proxy peak RSS after the full list"] = peak / 1024
		}
		return figs, nil
	})
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("LIST %d ConfigMaps", c.listItems)
	return results(name, medians,
		result{Metric: "wall time, " + runtime.ContentTypeJSON, Unit: "ms"},
		result{Metric: "wall time, " + runtime.ContentTypeProtobuf, Unit: "ms"},
		result{Metric: "wall time, JSON, 1/10 size", Unit: "ms"},
		result{Metric: "proxy peak RSS after the 1/10-size list", Unit: "MiB"},
		result{Metric: "proxy peak RSS after the full list", Unit: "MiB"},
	), nil
}
