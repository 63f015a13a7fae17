package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// scaleNamespace is where the cluster admin writes in the scale workload: a
// namespace of no tenant, so the admin's write is one every cluster user
// makes, judged by the same admission chain as a tenant's.
const scaleNamespace = "scale-admin"

// writer is one identity whose write latency the scale workload follows.
type writer struct {
	name string
	cs   kubernetes.Interface
	ns   string
}

// side is one of the two clusters of the scale workload.
type side struct {
	name    string
	env     *env
	writers []*writer
	// proxied is the bench tenant's client through `kubectl zoo serve`.
	proxied kubernetes.Interface
}

// runScale measures what the number of tenants costs: a write (a ConfigMap
// create+delete) as the cluster admin (every write in the cluster pays the
// admission policies), as the tenant identity directly upstream, and through
// `kubectl zoo serve`; GETs and LISTs through serve (timeReads); what the
// upstream holds per tenant (measureCost); the tenant commands
// (timeTenantCommands); namespace writes through serve
// (timeNamespaceWrites); what the tenants cost the multi-tenant server
// (measureServer: its start, memory and reads). Then the other axis,
// namespaces per tenant (runSpread).
//
// It compares two clusters that run side by side, one with 2 tenants and one
// with c.tenants (made with `kubectl zoo tenant create`), and the writes take
// turns between them and between the writers, write by write. Measuring the
// same cluster before and after adding tenants would put minutes between the
// two samples, and on a shared machine the noise of those minutes is larger
// than what is measured.
func runScale(ctx context.Context, c config, few *env) ([]result, error) {
	dir := filepath.Join(few.dir, "scaled")
	cluster, err := kubecluster.Start(ctx, kubecluster.Options{BinDir: c.kubeBin, Dir: filepath.Join(dir, "cluster")})
	if err != nil {
		return nil, err
	}
	defer cluster.Stop()
	many, err := setUp(ctx, c, cluster, dir)
	if err != nil {
		return nil, err
	}
	defer many.close()

	sides := []*side{{name: "few", env: few}, {name: "many", env: many}}
	for _, s := range sides {
		if err := s.prepare(ctx); err != nil {
			return nil, err
		}
	}
	if err := growTo(ctx, c, few, 2); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := growTo(ctx, c, many, c.tenants); err != nil {
		return nil, err
	}
	logf("scale: %d tenants created in %s", c.tenants, time.Since(t0).Round(time.Second))
	for _, s := range sides {
		if err := settle(ctx, c, s.env); err != nil {
			return nil, err
		}
	}
	for _, s := range sides {
		if err := s.prepareReads(ctx); err != nil {
			return nil, err
		}
	}
	if _, err := timeWrites(ctx, c, sides, "warm-up"); err != nil {
		return nil, err
	}
	times, err := timeWrites(ctx, c, sides, "measured")
	if err != nil {
		return nil, err
	}
	out := scaleResults(c, sides, times)
	for _, step := range []struct {
		name string
		run  func(ctx context.Context, c config, sides []*side) ([]result, error)
	}{
		{"reads through serve", timeReads},
		// After the reads: serve's RSS after it served them.
		{"what the upstream holds", measureCost},
		{"tenant commands", timeTenantCommands},
		{"namespace writes through serve", timeNamespaceWrites},
		// After the tenant commands and namespace writes, which leave 2
		// and N tenants again, and after the upstream's objects were
		// counted: it adds an identity and FlowSchemas of its own.
		{"the multi-tenant server", measureServer},
	} {
		t0 := time.Now()
		rs, err := step.run(ctx, c, sides)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", step.name, err)
		}
		logf("scale: %s took %s", step.name, time.Since(t0).Round(time.Second))
		out = append(out, rs...)
	}
	// Last: it adds two tenants to the few side. It does not depend on the
	// number of tenants, so a run at another count may leave it out.
	if c.spreadNamespaces == 0 {
		return out, nil
	}
	t0 = time.Now()
	rs, err := runSpread(ctx, c, few)
	if err != nil {
		return nil, fmt.Errorf("namespaces per tenant: %w", err)
	}
	logf("scale: namespaces per tenant took %s", time.Since(t0).Round(time.Second))
	return append(out, rs...), nil
}

// prepare makes the admin's namespace and the writers of one side.
func (s *side) prepare(ctx context.Context) error {
	e := s.env
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scaleNamespace}}
	if _, err := e.admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	s.writers = []*writer{{name: "cluster admin", cs: e.admin, ns: scaleNamespace}}
	for _, ep := range e.endpoints {
		label := map[string]string{"direct": "tenant identity, directly", "proxied": "tenant, through serve"}[ep.name]
		if label == "" {
			continue
		}
		cs, err := ep.client()
		if err != nil {
			return err
		}
		s.writers = append(s.writers, &writer{name: label, cs: cs, ns: ep.ns("default")})
		if ep.name == "proxied" {
			s.proxied = cs
		}
	}
	return nil
}

// scaleResults turns the paired samples into one row per figure.
func scaleResults(c config, sides []*side, times map[string]*writeTimes) []result {
	few, many := times[sides[0].name], times[sides[1].name]
	var out []result
	for _, fig := range controlPlane {
		b, s := few.cpuPerWrite[fig], many.cpuPerWrite[fig]
		out = append(out, result{Workload: "write (create+delete ConfigMap)", Metric: fig + " CPU per write, idle rate taken out",
			Unit: "µs", Baseline: &b, Scaled: &s, Tenants: c.tenants})
		bi, si := few.idleCPU[fig], many.idleCPU[fig]
		out = append(out, result{Workload: "idle, no writes", Metric: fig + " CPU", Unit: "ms/s",
			Baseline: &bi, Scaled: &si, Tenants: c.tenants})
	}
	var names []string
	for _, w := range sides[0].writers {
		names = append(names, w.name)
	}
	lat := map[string]map[string][]time.Duration{sides[0].name: few.latency, sides[1].name: many.latency}
	return append(out, latencyRows("write (create+delete ConfigMap)", c.tenants, lat, sides[0].name, sides[1].name, names)...)
}

// growTo runs `kubectl zoo tenant create` until the cluster of e has n
// tenants, c.scaleParallel at a time.
func growTo(ctx context.Context, c config, e *env, n int) error {
	have, err := tenantCount(ctx, e)
	if err != nil {
		return err
	}
	names := make([]string, max(0, n-have))
	for i := range names {
		names[i] = fmt.Sprintf("s%d", i)
	}
	return createTenants(ctx, c, e, names)
}

// createTenants runs `kubectl zoo tenant create` for every name,
// c.scaleParallel at a time.
func createTenants(ctx context.Context, c config, e *env, names []string) error {
	t0 := time.Now()
	return inParallel(ctx, len(names), c.scaleParallel, func(i int) error {
		name := names[i]
		// tenant create resumes where it failed; a run of thousands of
		// tenants should not end on one that timed out waiting for the API
		// server to enforce its boundary, so it gets two more tries.
		var err error
		for try := range 3 {
			var out []byte
			out, err = exec.CommandContext(ctx, c.zoo, "--kubeconfig", e.cluster.Kubeconfig, "tenant", "create", name).CombinedOutput()
			if err == nil {
				break
			}
			err = fmt.Errorf("tenant create %s: %w: %s", name, err, out)
			logf("scale: try %d: %v", try+1, err)
		}
		if err != nil {
			return err
		}
		if done := i + 1; done%250 == 0 {
			logf("scale: %d of %d tenants created in %s", done, len(names), time.Since(t0).Round(time.Second))
		}
		return nil
	})
}

// inParallel runs do(0..n-1) on workers goroutines and returns the first
// error.
func inParallel(ctx context.Context, n, workers int, do func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n) && ctx.Err() == nil && failed.Load() == nil; i = next.Add(1) - 1 {
				if err := do(int(i)); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return err
	}
	return ctx.Err()
}

// settle waits until the controllers have caught up with the new namespaces
// (each has its default ServiceAccount and its kube-root-ca.crt ConfigMap),
// and a little more, so that the writes measured after it do not share the
// machine with that burst. The controllers write at 20 requests/s each
// (kube-controller-manager's default client rate), so a large run may have to
// wait a long time: 4 namespaces a tenant, 5000 tenants, 1000 s.
func settle(ctx context.Context, c config, e *env) error {
	t0 := time.Now()
	timeout := 10*time.Minute + time.Duration(c.tenants)*250*time.Millisecond
	var behind string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		nss, err := e.admin.CoreV1().Namespaces().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, err
		}
		sas, err := e.admin.CoreV1().ServiceAccounts("").List(ctx, metav1.ListOptions{ResourceVersion: "0", FieldSelector: "metadata.name=default"})
		if err != nil {
			return false, err
		}
		cms, err := e.admin.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{ResourceVersion: "0", FieldSelector: "metadata.name=kube-root-ca.crt"})
		if err != nil {
			return false, err
		}
		behind = fmt.Sprintf("%d namespaces, %d default ServiceAccounts, %d kube-root-ca.crt", len(nss.Items), len(sas.Items), len(cms.Items))
		return len(sas.Items) >= len(nss.Items) && len(cms.Items) >= len(nss.Items), nil
	})
	if err != nil {
		return fmt.Errorf("wait for the controllers to catch up (%s): %w", behind, err)
	}
	logf("scale: controllers caught up in %s", time.Since(t0).Round(time.Second))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return nil
	}
}

// tenantCount counts the Tenant records.
func tenantCount(ctx context.Context, e *env) (int, error) {
	tc, err := tenantctl.NewClient(e.cluster.Config)
	if err != nil {
		return 0, err
	}
	infos, _, err := tc.ListTenants(ctx, upstream.DefaultChunkSize)
	if err != nil {
		return 0, err
	}
	return len(infos), nil
}
