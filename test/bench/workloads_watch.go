package main

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

// createProfileSeconds is how long -profiles samples a proxy's CPU during
// the first repetition of the CREATE workload: shorter than the workload
// (2 000 creates take several seconds on any endpoint), so the profile
// sees only creates.
const createProfileSeconds = 3

func runCreate(ctx context.Context, c config, e *env) ([]result, error) {
	if err := ensureNamespace(ctx, e, "create"); err != nil {
		return nil, err
	}
	medians, err := eachRep(ctx, c, e, func(ctx context.Context, ep *endpoint, rep int) (map[string]float64, error) {
		cs, err := ep.client()
		if err != nil {
			return nil, err
		}
		prefix := fmt.Sprintf("%s-%d", ep.name, rep)
		if rep == 0 {
			defer ep.profileWorkload(ctx, c, "create", createProfileSeconds)()
		}
		cpu0, measured := ep.cpuSeconds()
		var next atomic.Int64
		var failed atomic.Value
		var wg sync.WaitGroup
		t0 := time.Now()
		for range c.createClients {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(c.creates); i = next.Add(1) - 1 {
					cm := configMap(fmt.Sprintf("%s-%05d", prefix, i), 256)
					if _, err := cs.CoreV1().ConfigMaps(ep.ns("create")).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
						failed.Store(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if err, _ := failed.Load().(error); err != nil {
			return nil, err
		}
		figs := map[string]float64{"throughput": float64(c.creates) / time.Since(t0).Seconds()}
		if cpu1, ok := ep.cpuSeconds(); ok && measured {
			figs["proxy CPU per create"] = (cpu1 - cpu0) * 1e6 / float64(c.creates)
		}
		return figs, nil
	})
	if err != nil {
		return nil, err
	}
	return results(fmt.Sprintf("CREATE %d ConfigMaps", c.creates), medians,
		result{Metric: "throughput", Unit: fmt.Sprintf("creates/s (%d clients)", c.createClients), HigherIsBetter: true},
		result{Metric: "proxy CPU per create", Unit: "µs"}), nil
}

// runWatch writes ConfigMaps one at a time with the admin client, straight to
// the upstream, and times how long after the write started the event arrives
// through each endpoint's watch. (The event often arrives before the write's
// answer, so timing from the answer would measure nothing.) The write is the
// same for all three, so the differences are the watch path's.
//
// Each endpoint watches a namespace of its own, and the writes go round the
// endpoints event by event (eachRound): every path samples the same stretch
// of the machine's noise, where whole runs one after the other would give a
// p99 to whichever endpoint ran while the apiserver or etcd stalled.
func runWatch(ctx context.Context, c config, e *env) ([]result, error) {
	for _, ep := range e.endpoints {
		if err := ensureNamespace(ctx, e, "watch-"+ep.name); err != nil {
			return nil, err
		}
	}
	samples := map[string]map[string][]float64{"p50": {}, "p99": {}}
	for rep := range c.reps {
		ctx, cancel := context.WithCancel(ctx) // ends the rep's watches
		arrivals := map[string]<-chan arrival{}
		for _, ep := range e.endpoints {
			cs, err := ep.client()
			if err != nil {
				cancel()
				return nil, err
			}
			w, err := cs.CoreV1().ConfigMaps(ep.ns("watch-"+ep.name)).Watch(ctx, metav1.ListOptions{})
			if err != nil {
				cancel()
				return nil, fmt.Errorf("%s: %w", ep.name, err)
			}
			arrivals[ep.name] = timeArrivals(w)
		}
		lat, err := eachRound(e, c.watchEvents, func(ep *endpoint, i int) (time.Duration, error) {
			name := fmt.Sprintf("w-%d-%d", rep, i)
			written := time.Now()
			ns := benchTenant + "-watch-" + ep.name
			if _, err := e.admin.CoreV1().ConfigMaps(ns).Create(ctx, configMap(name, 64), metav1.CreateOptions{}); err != nil {
				return 0, err
			}
			at, err := awaitAdded(arrivals[ep.name], name)
			return at.Sub(written), err
		})
		cancel()
		if err != nil {
			return nil, err
		}
		for ep, l := range lat {
			samples["p50"][ep] = append(samples["p50"][ep], ms(percentile(l, 50)))
			samples["p99"][ep] = append(samples["p99"][ep], ms(percentile(l, 99)))
		}
	}
	name := fmt.Sprintf("WATCH %d events", c.watchEvents)
	return results(name, medianOf(samples), result{Metric: "p50", Unit: "ms"}, result{Metric: "p99", Unit: "ms"}), nil
}

// arrival is an ADDED event and when it came out of the watch.
type arrival struct {
	name string
	at   time.Time
}

// timeArrivals stamps every ADDED ConfigMap event as it arrives.
func timeArrivals(w watch.Interface) <-chan arrival {
	out := make(chan arrival, 1024)
	go func() {
		defer close(out)
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added {
				out <- arrival{name: cm.Name, at: time.Now()}
			}
		}
	}()
	return out
}

func awaitAdded(arrivals <-chan arrival, name string) (time.Time, error) {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case a, ok := <-arrivals:
			if !ok {
				return time.Time{}, fmt.Errorf("watch closed before %s arrived", name)
			}
			if a.name == name {
				return a.at, nil
			}
		case <-timeout:
			return time.Time{}, fmt.Errorf("no ADDED event for %s in 30s", name)
		}
	}
}

// runOpenWatches holds many watches open through each proxy at once and
// reads the proxy's memory and (where it serves profiles) goroutine count.
func runOpenWatches(ctx context.Context, c config, e *env) ([]result, error) {
	measured := map[string]map[string]float64{"rss": {}, "goroutines": {}}
	for _, ep := range e.endpoints {
		if ep.cmd == nil {
			continue
		}
		cs, err := ep.client()
		if err != nil {
			return nil, err
		}
		wctx, cancel := context.WithCancel(ctx)
		var watches []watch.Interface
		for range c.openWatches {
			w, err := cs.CoreV1().ConfigMaps(ep.ns("default")).Watch(wctx, metav1.ListOptions{})
			if err != nil {
				cancel()
				return nil, fmt.Errorf("%s: open watch %d: %w", ep.name, len(watches), err)
			}
			watches = append(watches, w)
		}
		time.Sleep(time.Second)
		if rss, _, ok := ep.rssKiB(); ok {
			measured["rss"][ep.name] = rss / 1024
		}
		if n, ok := ep.goroutines(ctx); ok {
			measured["goroutines"][ep.name] = n
		}
		if c.profiles != "" {
			if err := ep.saveProfiles(ctx, c.profiles, "watches-open"); err != nil {
				logf("saving the %s profiles: %v", ep.name, err)
			}
		}
		for _, w := range watches {
			w.Stop()
		}
		cancel()
	}
	return results(fmt.Sprintf("%d watches open", c.openWatches), measured, result{Metric: "rss", Unit: "MiB"},
		result{Metric: "goroutines", Unit: "count"}), nil
}

// measureTenantCreate times `kubectl zoo tenant create` (median of
// c.tenantCreates fresh tenants).
func measureTenantCreate(ctx context.Context, c config, cluster *kubecluster.Cluster) (result, error) {
	var times []float64
	for i := range c.tenantCreates {
		name := fmt.Sprintf("t%d", i)
		t0 := time.Now()
		out, err := exec.CommandContext(ctx, c.zoo, "--kubeconfig", cluster.Kubeconfig, "tenant", "create", name).CombinedOutput()
		if err != nil {
			return result{}, fmt.Errorf("tenant create %s: %w: %s", name, err, out)
		}
		times = append(times, ms(time.Since(t0)))
	}
	v := median(times)
	return result{Workload: "kubectl zoo tenant create", Metric: fmt.Sprintf("wall time, median of %d", c.tenantCreates),
		Unit: "ms", Proxied: &v}, nil
}
