package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// fleetConfigMaps is the resource of ConfigMaps, the kind the fleet writes.
var fleetConfigMaps = translate.ResourceOf("", "ConfigMap")

// fleetKinds are the resources a fleet tenant's informers watch, in turn,
// each in the tenant's standard namespaces in turn (fleetWatchOf).
var fleetKinds = []string{fleetConfigMaps, translate.ResourceOf("", "Pod"), translate.ResourceOf("", "Secret"),
	translate.ResourceOf("", "Event")}

// fleetOpenParallel is how many watches the fleet opens at once.
const fleetOpenParallel = 32

// fleet is one replica of the multi-tenant server with the watches of many
// tenants held through it and, the same ones, directly upstream.
type fleet struct {
	e       *env
	tenants []translate.Tenant
	server  *endpoint
	// sides hold the watches: through the replica ("server") and directly
	// upstream as each tenant's identity ("direct").
	sides    []*fleetSide
	arrivals *fleetArrivals
	// held is how many watches each tenant holds on each side; cmWatches
	// how many of them watch the ConfigMaps of fleetWriteNamespace, where
	// the writes go.
	held, cmWatches []int
	// reopened counts the watches that ended and were listed and watched
	// again, as a reflector does.
	reopened atomic.Int64
	// watching is the context of the watches, stop ends them.
	watching context.Context
	stop     context.CancelFunc
}

// fleetSide is one way to hold the fleet's watches.
type fleetSide struct {
	name    string                 // the result column: "server" or "direct"
	clients []kubernetes.Interface // one per tenant
	// upstreamNames says whether its namespaces are the upstream's (directly)
	// rather than the tenant's (through the replica).
	upstreamNames bool
}

// runFleet measures one replica of the multi-tenant server (`serve
// --listen`) holding the watches of c.fleetTenants tenants, informers of
// ConfigMaps, Pods, Secrets and Events in their namespaces, at each count of
// c.fleetWatches in turn: the replica's RSS, live heap and CPU, and the
// latency from a write (a ConfigMap the cluster admin creates in a tenant's
// namespace, at c.fleetWriteRate, round the tenants) to its event on each
// watch of it, against the same watches held directly upstream as the
// tenants' identities at the same time, so that both sample the same noise.
func runFleet(ctx context.Context, c config, e *env) ([]result, error) {
	if c.fleetTenants < 1 || c.fleetWriteRate <= 0 || c.fleetDuration <= 0 {
		return nil, fmt.Errorf("-fleet-tenants, -fleet-writes-per-second and -fleet-duration must be positive")
	}
	f, err := newFleet(ctx, c, e)
	if f != nil {
		defer f.close()
	}
	if err != nil {
		return nil, err
	}
	before, err := f.warm(ctx, c)
	if err != nil {
		return nil, err
	}
	logf("fleet: the replica holds no watch: RSS %.0f MiB", before["RSS"]/1024)
	out := []result{
		fleetRow(c, 0, "replica RSS", "MiB", map[string]float64{"server": before["RSS"] / 1024}),
		fleetRow(c, 0, "replica "+serverLiveHeap, "MiB", map[string]float64{"server": before[serverLiveHeap] / 1024}),
	}
	prev := 0
	for _, w := range c.fleetWatches {
		t0 := time.Now()
		rs, now, err := f.step(ctx, c, w, prev, before)
		if err != nil {
			return nil, fmt.Errorf("%d watches: %w", w, err)
		}
		bench, _, _ := processRSSKiB(os.Getpid())
		logf("fleet: %d watches measured in %s (the bench process's RSS: %.0f MiB)", w, time.Since(t0).Round(time.Second), bench/1024)
		out = append(out, rs...)
		prev, before = w, now
	}
	return out, nil
}

// newFleet creates the fleet's tenants, starts the replica as its own
// upstream identity (serverUpstream, as the scale workload's) and makes
// each tenant's clients: a client certificate of its admin through the
// replica, its upstream identity directly.
func newFleet(ctx context.Context, c config, e *env) (*fleet, error) {
	names := make([]string, c.fleetTenants)
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
	}
	t0 := time.Now()
	if err := createTenants(ctx, c, e, names); err != nil {
		return nil, err
	}
	logf("fleet: %d tenants created in %s", len(names), time.Since(t0).Round(time.Second))
	if err := settle(ctx, c, e); err != nil {
		return nil, err
	}
	kubeconfig, err := serverUpstream(ctx, e)
	if err != nil {
		return nil, err
	}
	certs := make([][2][]byte, len(names))
	err = inParallel(ctx, len(names), c.scaleParallel, func(i int) error {
		cert, key, err := e.cluster.SignClientCertificate(ctx, "zoo:"+names[i]+":"+translate.DefaultAdminUser, "zoo:tenant:"+names[i])
		certs[i] = [2][]byte{cert, key}
		return err
	})
	if err != nil {
		return nil, err
	}
	ep, ready, err := launchServer(ctx, c, filepath.Join(e.dir, "fleet-server"), kubeconfig, certs[0][0], certs[0][1], 2*time.Minute)
	f := &fleet{e: e, server: ep, arrivals: newFleetArrivals(), held: make([]int, len(names)), cmWatches: make([]int, len(names))}
	f.watching, f.stop = context.WithCancel(ctx)
	if err != nil {
		return f, err
	}
	logf("fleet: the replica is ready in %s", ready.Round(time.Millisecond))
	through := &fleetSide{name: "server"}
	direct := &fleetSide{name: "direct", upstreamNames: true}
	for i, name := range names {
		cfg := &rest.Config{Host: ep.config.Host, QPS: -1, TLSClientConfig: rest.TLSClientConfig{CAData: ep.config.CAData, CertData: certs[i][0], KeyData: certs[i][1]}}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return f, err
		}
		t, upstream, err := tenantIdentityClient(e, name)
		if err != nil {
			return f, err
		}
		f.tenants = append(f.tenants, t)
		through.clients = append(through.clients, cs)
		direct.clients = append(direct.clients, upstream)
	}
	f.sides = []*fleetSide{through, direct}
	return f, nil
}

// close ends the watches and the replica.
func (f *fleet) close() {
	f.stop()
	if f.server != nil {
		f.server.stop()
	}
}

// warm has every tenant make one request through the replica, which makes
// its identity's proxy, so that the figures of the steps are what the
// watches add; it returns the replica's figures then.
func (f *fleet) warm(ctx context.Context, c config) (map[string]float64, error) {
	err := inParallel(ctx, len(f.tenants), c.scaleParallel, func(i int) error {
		_, err := f.sides[0].clients[i].CoreV1().Namespaces().Get(ctx, fleetWriteNamespace, metav1.GetOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("a request of each tenant through the replica: %w", err)
	}
	m, err := serverOwnMetrics(ctx, f.e, f.server)
	if err != nil {
		return nil, err
	}
	return serverFiguresOf(m, f.server), nil
}

// fleetWatchOf is the kind and tenant-local namespace of the k-th watch of
// a tenant: the kinds in turn, then the next namespace.
func fleetWatchOf(k int) (kind, ns string) {
	return fleetKinds[k%len(fleetKinds)], tenantapi.StandardNamespaces[(k/len(fleetKinds))%len(tenantapi.StandardNamespaces)]
}

// fleetShare is how many of w watches tenant i of n holds: w/n, one more
// for the first w%n tenants.
func fleetShare(w, n, i int) int {
	if i < w%n {
		return w/n + 1
	}
	return w / n
}
