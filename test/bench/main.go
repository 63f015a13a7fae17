// Command bench measures what kubectl-zoo costs: it starts the local upstream,
// one tenant, and four endpoints in the same run — the upstream directly, a
// plain pass-through hop (`kubectl proxy`, the same upstream transport and
// UpgradeAwareHandler without translation), `kubectl zoo serve` and the
// multi-tenant server (`kubectl zoo serve --listen`, reached with a tenant
// client certificate) — runs the
// same client code against each, and prints one table of the figures and
// their ratios. Only ratios from one run mean anything on a shared machine.
//
//	go run ./test/bench -out bench/results.json
//
// `make bench` runs it (after building the binaries it needs).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

// config holds the sizes of the workloads.
type config struct {
	kubeBin, zoo, out      string
	reps                   int
	getRequests            int
	getClients             int
	getDuration            time.Duration
	listItems              int
	createClients, creates int
	watchEvents            int
	openWatches            int
	tenantCreates          int
	tenants                int
	scaleWrites            int
	scaleParallel          int
	scaleReads             int
	scaleServerStarts      int
	tenantOps, tenantLists int
	spreadNamespaces       int
	spreadConfigMaps       int
	spreadLists            int
	spreadInformers        int
	floodRequests          int
	floodClients           int
	fleetWatches           intList
	fleetTenants           int
	fleetWriteRate         float64
	fleetDuration          time.Duration
	only                   map[string]bool
	profiles               string
}

func main() {
	var c config
	flag.StringVar(&c.kubeBin, "kube-bin", os.Getenv("ZOO_KUBE_BIN"), "directory with the control-plane binaries")
	flag.StringVar(&c.zoo, "zoo", "bin/kubectl-zoo", "the kubectl-zoo binary")
	flag.StringVar(&c.out, "out", "bench/results.json", "where to write the figures as JSON")
	flag.IntVar(&c.reps, "reps", 3, "repetitions of each measurement (medians are reported)")
	flag.IntVar(&c.getRequests, "get-requests", 1000, "sequential GETs for the latency figures")
	flag.IntVar(&c.getClients, "get-clients", 32, "concurrent clients for GET throughput")
	flag.DurationVar(&c.getDuration, "get-duration", 10*time.Second, "how long GET throughput runs")
	flag.IntVar(&c.listItems, "list-items", 10000, "ConfigMaps in the LIST workload")
	flag.IntVar(&c.createClients, "create-clients", 16, "concurrent clients for CREATE throughput")
	flag.IntVar(&c.creates, "creates", 2000, "ConfigMaps created in the CREATE workload")
	flag.IntVar(&c.watchEvents, "watch-events", 1000, "events in the WATCH latency workload")
	flag.IntVar(&c.openWatches, "open-watches", 1000, "watches held open at once")
	flag.IntVar(&c.floodRequests, "flood-requests", 3000, "tenant B's sequential GETs per phase of the flood workload")
	flag.IntVar(&c.floodClients, "flood-clients", 64, "tenant A's concurrent clients in the flood workload")
	flag.IntVar(&c.tenantCreates, "tenant-creates", 10, "`kubectl zoo tenant create` runs")
	flag.IntVar(&c.tenants, "tenants", 1000, "tenants in the scale workload")
	flag.IntVar(&c.scaleWrites, "scale-writes", 300, "create+delete rounds per writer in the scale workload, at each tenant count")
	flag.IntVar(&c.scaleParallel, "scale-parallel", 8, "`kubectl zoo tenant create` runs at once while the scale workload adds tenants")
	flag.IntVar(&c.scaleReads, "scale-reads", 200, "rounds of the GETs and LISTs through serve in the scale workload, at each tenant count")
	flag.IntVar(&c.scaleServerStarts, "scale-server-starts", 1, "starts of the multi-tenant server the scale workload times, at each tenant count")
	flag.IntVar(&c.tenantOps, "scale-tenant-ops", 20, "tenants `kubectl zoo tenant create` and `tenant delete --wait` add and remove one by one, at each tenant count")
	flag.IntVar(&c.tenantLists, "scale-tenant-lists", 10, "`kubectl zoo tenant list` runs at each tenant count")
	flag.IntVar(&c.spreadNamespaces, "spread-namespaces", 200, "namespaces of the tenant whose ConfigMaps are spread out (the scale workload's other axis, which does not depend on -tenants; 0 leaves it out)")
	flag.IntVar(&c.spreadConfigMaps, "spread-configmaps", 5, "ConfigMaps per namespace of that tenant (besides kube-root-ca.crt)")
	flag.IntVar(&c.spreadLists, "spread-lists", 20, "all-namespaces LISTs (and one-namespace LISTs) of those ConfigMaps")
	flag.IntVar(&c.spreadInformers, "spread-informers", 5, "informers started (and synced) over those ConfigMaps")
	c.fleetWatches = intList{1000, 5000, 10000}
	flag.Var(&c.fleetWatches, "fleet-watches", "comma-separated, ascending: the watches the fleet workload's server replica holds at each step")
	flag.IntVar(&c.fleetTenants, "fleet-tenants", 200, "tenants whose watches the fleet workload holds, spread evenly")
	flag.Float64Var(&c.fleetWriteRate, "fleet-writes-per-second", 20, "ConfigMap creates per second, round the tenants, while the fleet workload times the events")
	flag.DurationVar(&c.fleetDuration, "fleet-duration", 30*time.Second, "how long the fleet workload writes at each step")
	flag.StringVar(&c.profiles, "profiles", "", "directory to save each proxy's CPU and allocation profiles of the GET and CREATE workloads, and its heap and goroutine profiles while the watches are open (serve and the server), and the fleet replica's heap and goroutines at each step")
	only := flag.String("only", "", "comma-separated workloads to run (get, list, create, watch, watches-open, flood, tenant-create, scale, spread: the namespaces-per-tenant step of scale alone, fleet); all but scale, spread and fleet by default")
	flag.Parse()
	if *only != "" {
		c.only = map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			c.only[strings.TrimSpace(name)] = true
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (err error) {
	if c.kubeBin == "" {
		return fmt.Errorf("set -kube-bin or ZOO_KUBE_BIN (make bench does)")
	}
	zoo, err := filepath.Abs(c.zoo)
	if err != nil {
		return err
	}
	c.zoo = zoo
	dir, err := os.MkdirTemp("", "zoo-bench-")
	if err != nil {
		return err
	}
	defer func() { // keep the cluster's logs when something failed
		if err == nil {
			os.RemoveAll(dir)
		} else {
			logf("the cluster's state and logs stay in %s", dir)
		}
	}()

	start := time.Now()
	cluster, err := kubecluster.Start(ctx, kubecluster.Options{BinDir: c.kubeBin, Dir: filepath.Join(dir, "cluster")})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	logf("cluster ready in %s", time.Since(start).Round(time.Millisecond))

	env, err := setUp(ctx, c, cluster, dir)
	if err != nil {
		return err
	}
	defer env.close()

	var results []result
	for _, w := range workloads {
		if !c.selected(w.name) {
			continue
		}
		rs, err := timed(ctx, c, env, w)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	if c.selected("tenant-create") {
		tenantCreate, err := measureTenantCreate(ctx, c, cluster)
		if err != nil {
			return err
		}
		results = append(results, tenantCreate)
	}

	// spread is the scale workload's namespaces-per-tenant step on its own
	// (it does not depend on the number of tenants), and scale and fleet go
	// last: they leave tenants behind (scale its few side's). Each only when
	// asked.
	for _, w := range []workload{{"spread", runSpread}, {"scale", runScale}, {"fleet", runFleet}} {
		if !c.only[w.name] || (w.name == "spread" && c.only["scale"]) {
			continue
		}
		rs, err := timed(ctx, c, env, w)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}

	printTable(os.Stdout, results)
	return writeJSON(c.out, results)
}

// timed runs workload w on e and logs how long it took.
func timed(ctx context.Context, c config, e *env, w workload) ([]result, error) {
	logf("workload %s", w.name)
	t0 := time.Now()
	rs, err := w.run(ctx, c, e)
	logf("workload %s took %s", w.name, time.Since(t0).Round(time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.name, err)
	}
	return rs, nil
}

// selected reports whether -only lets the named workload run.
func (c config) selected(name string) bool { return c.only == nil || c.only[name] }

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
