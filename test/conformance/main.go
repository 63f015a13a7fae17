// Command conformance measures how much of the Kubernetes conformance suite
// holds through `kubectl zoo serve`: it starts the local upstream, installs
// kubectl-zoo, runs the focused specs of the pinned e2e.test once directly as
// the upstream admin and once through `kubectl zoo serve` as the admin of a
// fresh tenant, and prints which share of the specs passing directly also
// passes through the proxy, and every spec lost on the way with its first
// failure line.
//
//	go run ./test/conformance -e2e-bin .cache/conformance/v1.34.4 -out bench/conformance.json
//
// `make conformance` runs it; `make test-conformance-fast` runs a few fast
// specs through the proxy only (-only-proxied) and fails if one fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// tenant is the tenant the proxied run acts as.
const tenant = "conf"

// config holds the flags.
type config struct {
	kubeBin, e2eBin, zoo string
	focus                string
	nodes                int
	timeout              time.Duration
	work, out            string
	onlyProxied          bool
	noSkips              bool
	podSecurity          string
}

func main() {
	var c config
	flag.StringVar(&c.kubeBin, "kube-bin", os.Getenv("ZOO_KUBE_BIN"), "directory with the control-plane binaries and kubectl")
	flag.StringVar(&c.e2eBin, "e2e-bin", "", "directory with e2e.test and ginkgo (hack/build-conformance.sh)")
	flag.StringVar(&c.zoo, "zoo", "bin/kubectl-zoo", "the kubectl-zoo binary")
	flag.StringVar(&c.focus, "focus", `\[sig-api-machinery\].*\[Conformance\]`, "ginkgo focus: the specs to run")
	flag.IntVar(&c.nodes, "nodes", 2, "parallel ginkgo nodes")
	flag.DurationVar(&c.timeout, "timeout", 40*time.Minute, "ginkgo's limit for each run")
	flag.StringVar(&c.work, "work", ".zoo-conformance", "directory for the cluster, the reports and the logs")
	flag.StringVar(&c.out, "out", "", "where to write the comparison as JSON (none if empty)")
	flag.BoolVar(&c.onlyProxied, "only-proxied", false, "run through the proxy only and fail if any spec fails")
	fast := flag.Bool("fast", false, "the few fast specs of make test (see fast.go), through the proxy only; overrides -focus and -only-proxied")
	flag.BoolVar(&c.noSkips, "no-skips", false, "run also the specs kwok cannot pass (to review the skip list)")
	flag.StringVar(&c.podSecurity, "pod-security", "privileged",
		"the Pod Security level of the tenant (the platform's choice, set with kubectl zoo policy set --pod-security): many specs ask for privileged namespaces, which a tenant may only create at that level")
	flag.Parse()
	if *fast {
		c.focus, c.onlyProxied = fastFocus(), true
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	if c.kubeBin == "" || c.e2eBin == "" {
		return fmt.Errorf("set -kube-bin and -e2e-bin (make conformance does)")
	}
	if err := translate.ValidatePodSecurityLevel(c.podSecurity); err != nil {
		return fmt.Errorf("-pod-security: %w", err)
	}
	for _, p := range []*string{&c.kubeBin, &c.e2eBin, &c.zoo, &c.work} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	focus, err := regexp.Compile(c.focus)
	if err != nil {
		return fmt.Errorf("-focus: %w", err)
	}
	skips := kwokSkips
	if c.noSkips {
		skips = nil
	}

	start := time.Now()
	env, err := setUp(ctx, c)
	if err != nil {
		return err
	}
	defer env.close()
	logf("cluster, kubectl-zoo and tenant %s ready in %s", tenant, time.Since(start).Round(time.Second))

	proxied := suiteRun{name: "proxied", kubeconfig: env.serve.kubeconfig}
	if c.onlyProxied {
		return runOnlyProxied(ctx, c, proxied, focus, skips)
	}
	direct := suiteRun{name: "direct", kubeconfig: env.cluster.Kubeconfig}
	results := map[string]runResult{}
	took := map[string]time.Duration{}
	for _, r := range []suiteRun{direct, proxied} {
		report, d, err := r.run(ctx, c, joinSkips(skips))
		if err != nil {
			return err
		}
		if results[r.name], err = readOutcomes(report, focus); err != nil {
			return err
		}
		took[r.name] = d
	}
	cmp := buildComparison(c, skips, results["direct"], results["proxied"], took)
	printComparison(os.Stdout, cmp)
	if c.out != "" {
		return writeJSON(c.out, cmp)
	}
	return nil
}

// runOnlyProxied runs the focused specs through the proxy and fails unless
// every one of them passed.
func runOnlyProxied(ctx context.Context, c config, r suiteRun, focus *regexp.Regexp, skips []skipEntry) error {
	report, took, err := r.run(ctx, c, joinSkips(skips))
	if err != nil {
		return err
	}
	res, err := readOutcomes(report, focus)
	if err != nil {
		return err
	}
	if f := res.suiteFailure; f != nil {
		return fmt.Errorf("the suite failed through the proxy: %s (%s); see %s", f.Failure, f.Where, filepath.Join(c.work, r.name))
	}
	outcomes := res.specs
	s := summarize(outcomes, took)
	fmt.Printf("through kubectl zoo serve: %d of %d specs passed in %s\n", s.Passed, s.Ran, took.Round(time.Second))
	failed := false
	for _, name := range sortedNames(outcomes) {
		if o := outcomes[name]; o.State != "passed" && o.State != "skipped" {
			failed = true
			fmt.Printf("  FAILED %s\n    %s (%s)\n", name, o.Failure, o.Where)
		}
	}
	if s.Ran == 0 || failed {
		return fmt.Errorf("conformance specs failed through the proxy (or none ran); see %s", filepath.Join(c.work, r.name))
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "conformance: "+format+"\n", args...)
}
