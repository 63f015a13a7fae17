package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// serverQuiet is how long the server must make no upstream request for its
// start to count as done: its loops idle (the policy loop batches a
// quota's usage changes for 5 s).
const serverQuiet = 10 * time.Second

// serverStart is what one start of the multi-tenant server cost, and the
// running server.
type serverStart struct {
	ep *endpoint
	// ready is the time from the process's start until /readyz answered
	// ok; settled until its last upstream request before serverQuiet
	// passed without one.
	ready, settled time.Duration
	// atReady and atSettled are its upstream requests until then, by verb.
	atReady, atSettled map[string]float64
	// idle are its own figures once settled (serverFigures).
	idle map[string]float64
}

// serverReads are the reads through the server the scale workload times,
// as the bench tenant's admin.
var serverReads = []struct {
	name string
	read func(ctx context.Context, cs kubernetes.Interface) error
}{
	{"GET Namespace", func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err
	}},
	{"LIST Namespaces", func(ctx context.Context, cs kubernetes.Interface) error {
		l, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err == nil && !slices.ContainsFunc(l.Items, func(ns corev1.Namespace) bool { return ns.Name == "default" }) {
			err = fmt.Errorf("the list of %d namespaces holds no default", len(l.Items))
		}
		return err
	}},
	{"GET ConfigMap", func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, serverReadConfigMap, metav1.GetOptions{})
		return err
	}},
}

// serverReadConfigMap is the ConfigMap serverReads GETs.
const serverReadConfigMap = "scale-server-read"

// measureServer measures what tenants cost the multi-tenant server
// (`kubectl zoo serve --listen`): on each side a new server, as its own
// upstream identity (serverUpstream), is started and timed until ready and
// until its loops are idle, with its upstream requests counted and its
// memory read; the sides take turns over c.scaleServerStarts starts (each
// stopping the side's previous server). Then the bench tenant's reads
// through the last servers take turns, c.scaleReads rounds, and the memory
// is read again.
func measureServer(ctx context.Context, c config, sides []*side) ([]result, error) {
	kubeconfigs := make([]string, len(sides))
	certs := make([][2][]byte, len(sides))
	for i, s := range sides {
		var err error
		if kubeconfigs[i], err = serverUpstream(ctx, s.env); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		cert, key, err := s.env.cluster.SignClientCertificate(ctx, "zoo:"+benchTenant+":admin", "zoo:tenant:"+benchTenant)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		certs[i] = [2][]byte{cert, key}
	}
	for _, s := range sides {
		if err := waitNoTerminating(ctx, s.env); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	running := make([]*serverStart, len(sides))
	defer func() {
		for _, st := range running {
			if st != nil {
				st.ep.stop()
			}
		}
	}()
	starts := make([][]*serverStart, len(sides))
	for round := range c.scaleServerStarts {
		for j := range sides {
			i := (round + j) % len(sides)
			if running[i] != nil {
				running[i].ep.stop()
				running[i] = nil
			}
			dir := filepath.Join(sides[i].env.dir, fmt.Sprintf("scale-server-%d", round))
			st, err := startMeasured(ctx, c, sides[i].env, dir, kubeconfigs[i], certs[i])
			if st != nil {
				running[i] = st
			}
			if err != nil {
				return nil, fmt.Errorf("%s: start %d: %w", sides[i].name, round+1, err)
			}
			logf("scale: %s: server ready in %s, idle after %s, %v upstream requests", sides[i].name,
				st.ready.Round(time.Millisecond), st.settled.Round(time.Millisecond), sumValues(st.atSettled))
			starts[i] = append(starts[i], st)
		}
	}
	out := serverStartRows(c, starts)

	clients := make([]kubernetes.Interface, len(sides))
	for i, st := range running {
		cs, err := st.ep.client()
		if err != nil {
			return nil, err
		}
		clients[i] = cs
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, configMap(serverReadConfigMap, 64), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("%s: ConfigMap through the server: %w", sides[i].name, err)
		}
	}
	names := make([]string, len(serverReads))
	for k, r := range serverReads {
		names[k] = r.name
	}
	lat, err := takeTurns(ctx, sideNames(sides), names, c.scaleReads, func(ctx context.Context, si, k, _ int) error {
		return serverReads[k].read(ctx, clients[si])
	})
	if err != nil {
		return nil, err
	}
	out = append(out, latencyRows("read through the server (serve --listen)", c.tenants, lat, sides[0].name, sides[1].name, names)...)
	after := make([]map[string]float64, len(sides))
	for i, st := range running {
		if after[i], err = serverFiguresNow(ctx, sides[i].env, st.ep); err != nil {
			return nil, fmt.Errorf("%s: %w", sides[i].name, err)
		}
	}
	return append(out, serverFigureRows(c, "multi-tenant server, after the reads", after[0], after[1])...), nil
}

// waitNoTerminating waits until no namespace of e's cluster is terminating:
// the namespace writes before leave some, whose end would have a server's
// loops reconcile their tenant while its start is timed.
func waitNoTerminating(ctx context.Context, e *env) error {
	var left int
	err := wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		nss, err := e.admin.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left = 0
		for _, ns := range nss.Items {
			if ns.Status.Phase == corev1.NamespaceTerminating {
				left++
			}
		}
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("wait for %d terminating namespaces to go: %w", left, err)
	}
	return nil
}

// startMeasured starts a server on e and waits until it is ready and then
// idle, counting its upstream requests and reading its figures once idle.
func startMeasured(ctx context.Context, c config, e *env, dir, kubeconfig string, cert [2][]byte) (*serverStart, error) {
	before, err := serverRequests(ctx, e)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	ep, ready, err := launchServer(ctx, c, dir, kubeconfig, cert[0], cert[1], 2*time.Minute+time.Duration(c.tenants)*100*time.Millisecond)
	if err != nil {
		if ep != nil {
			ep.stop()
		}
		return nil, err
	}
	st := &serverStart{ep: ep, ready: ready}
	if st.atReady, err = serverRequestsSince(ctx, e, before); err != nil {
		return st, err
	}
	// Idle: no upstream request for serverQuiet. A server still busy after
	// the timeout is reported as it is then, with a warning.
	timeout := 5*time.Minute + time.Duration(c.tenants)*200*time.Millisecond
	last, lastChange := -1.0, time.Now()
	for {
		now, err := serverRequestsSince(ctx, e, before)
		if err != nil {
			return st, err
		}
		if n := sumValues(now); n != last {
			last, lastChange, st.atSettled = n, time.Now(), now
		}
		if time.Since(lastChange) >= serverQuiet {
			break
		}
		if time.Since(t0) > timeout {
			logf("scale: warning: the server still makes upstream requests %s after its start", timeout)
			break
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	st.settled = lastChange.Sub(t0)
	st.idle, err = serverFiguresNow(ctx, e, ep)
	return st, err
}

// serverRequestsSince counts the server identity's upstream requests since
// before, by verb.
func serverRequestsSince(ctx context.Context, e *env, before map[string]float64) (map[string]float64, error) {
	now, err := serverRequests(ctx, e)
	if err != nil {
		return nil, err
	}
	for verb := range now {
		now[verb] -= before[verb]
	}
	return now, nil
}

// serverStartRows are the rows of the starts: medians over the starts of
// each side, with what one tenant adds.
func serverStartRows(c config, starts [][]*serverStart) []result {
	const workload = "multi-tenant server (serve --listen), start"
	med := func(side int, f func(*serverStart) float64) float64 {
		var vs []float64
		for _, st := range starts[side] {
			vs = append(vs, f(st))
		}
		return median(vs)
	}
	row := func(metric, unit string, f func(*serverStart) float64) result {
		return scaleRow(c, workload, metric, unit, med(0, f), med(1, f))
	}
	out := []result{
		row("until /readyz is ok", "ms", func(st *serverStart) float64 { return ms(st.ready) }),
		row("until its loops are idle (last upstream request)", "ms", func(st *serverStart) float64 { return ms(st.settled) }),
		row("upstream requests until ready", "count", func(st *serverStart) float64 { return sumValues(st.atReady) }),
		row("upstream requests until idle", "count", func(st *serverStart) float64 { return sumValues(st.atSettled) }),
	}
	for _, verb := range append(serverVerbs, serverOtherVerbs) {
		r := row("upstream requests until idle: "+verb, "count", func(st *serverStart) float64 { return st.atSettled[verb] })
		if *r.Baseline != 0 || *r.Scaled != 0 {
			out = append(out, r)
		}
	}
	idle := func(side int) map[string]float64 {
		m := map[string]float64{}
		for _, f := range serverFigures {
			m[f.name] = med(side, func(st *serverStart) float64 { return st.idle[f.name] })
		}
		return m
	}
	return append(out, serverFigureRows(c, "multi-tenant server, idle after its start", idle(0), idle(1))...)
}

// scaleRow is a row of 2 against c.tenants tenants with what one tenant
// adds.
func scaleRow(c config, workload, metric, unit string, b, s float64) result {
	per := (s - b) / float64(c.tenants-2)
	return result{Workload: workload, Metric: metric, Unit: unit, Baseline: &b, Scaled: &s, Tenants: c.tenants, PerTenant: &per}
}

func sumValues(m map[string]float64) float64 {
	var n float64
	for _, v := range m {
		n += v
	}
	return n
}
