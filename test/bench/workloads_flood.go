package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// floodTenant is tenant A of the flood workload, with floodLimit;
// unlimitedTenant floods the same way without a limit, for comparison; the
// bench tenant is B.
const (
	floodTenant     = "flood"
	unlimitedTenant = "floodfree"
)

// floodLimit is A's fair share in the flood workload.
var floodLimit = policy.RateLimit{QPS: 20, Burst: 40, MaxInflight: 8}

// runFlood measures whether one tenant's flood slows another through serve
// and through the server: tenant B's sequential GET latency (c.floodRequests
// GETs) with nothing else running, while tenant A, limited to floodLimit,
// floods with c.floodClients client-go clients without client-side
// throttling (each retries a 429 after its Retry-After, as client-go does),
// and, for comparison, while a tenant without a limit floods the same way
// (a third of the GETs then: each takes many times longer).
// Within each rep the three phases rotate, so that all sample the
// machine's noise alike. A's admitted and refused answers per second show
// that the flood went beyond its share.
func runFlood(ctx context.Context, c config, e *env) ([]result, error) {
	if err := setUpFlood(ctx, c, e); err != nil {
		return nil, err
	}
	samples := map[string]map[string][]float64{}
	add := func(metric, ep string, v float64) {
		if samples[metric] == nil {
			samples[metric] = map[string][]float64{}
		}
		samples[metric][ep] = append(samples[metric][ep], v)
	}
	for _, name := range []string{"proxied", "server"} {
		b, floods, stop, err := floodClients(ctx, c, e, name)
		if err != nil {
			return nil, err
		}
		for rep := range c.reps {
			var unloaded []time.Duration
			loaded := map[string][]time.Duration{}
			for phase := range 3 {
				switch tenant := []string{"", floodTenant, unlimitedTenant}[(phase+rep)%3]; tenant {
				case "":
					unloaded, err = sequentialGets(ctx, b, c.floodRequests)
				default:
					var admitted, refused float64
					n := c.floodRequests
					if tenant == unlimitedTenant {
						n = max(100, n/3) // B's GETs are many times slower then
					}
					loaded[tenant], admitted, refused, err = duringFlood(ctx, c, floods[tenant], b, n)
					if tenant == floodTenant {
						add("A admitted", name, admitted)
						add("A refused (429)", name, refused)
					} else {
						add("unlimited tenant admitted", name, admitted)
					}
				}
				if err != nil {
					stop()
					return nil, fmt.Errorf("%s: %w", name, err)
				}
			}
			p99u := ms(percentile(unloaded, 99))
			p99l, p99f := ms(percentile(loaded[floodTenant], 99)), ms(percentile(loaded[unlimitedTenant], 99))
			add("B p99, unloaded", name, p99u)
			add("B p99, during A's flood", name, p99l)
			add("B p99, A's flood / unloaded", name, p99l/p99u)
			add("B p50, unloaded", name, ms(percentile(unloaded, 50)))
			add("B p50, during A's flood", name, ms(percentile(loaded[floodTenant], 50)))
			add("B p99, during an unlimited tenant's flood", name, p99f)
			add("B p99, unlimited flood / unloaded", name, p99f/p99u)
		}
		stop()
	}
	return results(fmt.Sprintf("GET, tenant B while tenant A floods (%d clients; A limited to %d qps, burst %d, %d in flight)",
		c.floodClients, floodLimit.QPS, floodLimit.Burst, floodLimit.MaxInflight), medianOf(samples),
		result{Metric: "B p99, unloaded", Unit: "ms"},
		result{Metric: "B p99, during A's flood", Unit: "ms"},
		result{Metric: "B p99, A's flood / unloaded", Unit: "x (target ≤ 1.2)"},
		result{Metric: "B p50, unloaded", Unit: "ms"},
		result{Metric: "B p50, during A's flood", Unit: "ms"},
		result{Metric: "A admitted", Unit: "req/s", HigherIsBetter: true},
		result{Metric: "A refused (429)", Unit: "answers/s"},
		result{Metric: "B p99, during an unlimited tenant's flood", Unit: "ms"},
		result{Metric: "B p99, unlimited flood / unloaded", Unit: "x"},
		result{Metric: "unlimited tenant admitted", Unit: "req/s", HigherIsBetter: true},
	), nil
}

// setUpFlood creates tenant A with its share and the unlimited tenant, and a
// ConfigMap get-me in the default namespace of each tenant.
func setUpFlood(ctx context.Context, c config, e *env) error {
	for _, tenant := range []string{floodTenant, unlimitedTenant} {
		out, err := exec.CommandContext(ctx, c.zoo, "--kubeconfig", e.cluster.Kubeconfig, "tenant", "create", tenant).CombinedOutput()
		if err != nil {
			return fmt.Errorf("kubectl-zoo tenant create %s: %w: %s", tenant, err, out)
		}
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"policy": policy.Policy{RateLimit: &floodLimit}}})
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(e.cluster.Config)
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(tenantapi.TenantGVR).Patch(ctx, floodTenant, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("tenant %s's rate limit: %w", floodTenant, err)
	}
	for _, tenant := range []string{benchTenant, floodTenant, unlimitedTenant} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "get-me"}, Data: map[string]string{"payload": "x"}}
		if _, err := e.admin.CoreV1().ConfigMaps(tenant+"-default").Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// floodClients returns B's client on endpoint name, the flooding tenants'
// configs there (their own serve for serve; their own certificates for the
// server) and what stops their endpoints.
func floodClients(ctx context.Context, c config, e *env, name string) (*kubernetes.Clientset, map[string]*rest.Config, func(), error) {
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	b, err := e.endpoint(name).client()
	if err != nil {
		return nil, nil, stop, err
	}
	floods := map[string]*rest.Config{}
	for _, tenant := range []string{floodTenant, unlimitedTenant} {
		if name == "proxied" {
			ep, err := startServe(ctx, c, e.cluster, e.dir, tenant)
			if ep != nil {
				stops = append(stops, ep.stop)
			}
			if err != nil {
				return nil, nil, stop, err
			}
			floods[tenant] = ep.config
			continue
		}
		certPEM, keyPEM, err := e.cluster.SignClientCertificate(ctx, "zoo:"+tenant+":admin", "zoo:tenant:"+tenant)
		if err != nil {
			return nil, nil, stop, err
		}
		a := rest.CopyConfig(e.endpoint(name).config)
		a.CertData, a.KeyData = certPEM, keyPEM
		floods[tenant] = a
	}
	if _, err := sequentialGets(ctx, b, 50); err != nil { // warm up
		return nil, nil, stop, err
	}
	return b, floods, stop, nil
}

// sequentialGets times n GETs of B's get-me, one after the other.
func sequentialGets(ctx context.Context, cs *kubernetes.Clientset, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "get-me", metav1.GetOptions{}); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// duringFlood starts a tenant's flood, lets it ramp up for a second, times n
// of B's GETs, and stops the flood; it returns B's latencies and A's admitted and
// refused answers per second while B was timed.
func duringFlood(ctx context.Context, c config, a *rest.Config, b *kubernetes.Clientset, n int) (lat []time.Duration, admitted, refused float64, err error) {
	var ok, tooMany atomic.Int64
	cfg := rest.CopyConfig(a)
	cfg.QPS, cfg.Burst = -1, 0 // beyond its share: only the server-side limit holds it
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingRT{next: rt, ok: &ok, tooMany: &tooMany} })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, 0, 0, err
	}
	floodCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range c.floodClients {
		wg.Go(func() {
			for floodCtx.Err() == nil {
				// Errors are 429s client-go gave up on after its retries.
				_, _ = cs.CoreV1().ConfigMaps("default").Get(floodCtx, "get-me", metav1.GetOptions{})
			}
		})
	}
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
	}
	ok0, tooMany0, t0 := ok.Load(), tooMany.Load(), time.Now()
	lat, err = sequentialGets(ctx, b, n)
	took := time.Since(t0).Seconds()
	admitted, refused = float64(ok.Load()-ok0)/took, float64(tooMany.Load()-tooMany0)/took
	cancel()
	wg.Wait()
	return lat, admitted, refused, err
}

// countingRT counts A's answers: admitted (2xx) and refused (429).
type countingRT struct {
	next        http.RoundTripper
	ok, tooMany *atomic.Int64
}

func (c countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			c.tooMany.Add(1)
		case resp.StatusCode < 300:
			c.ok.Add(1)
		}
	}
	return resp, err
}
