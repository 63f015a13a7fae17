package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeTimes are the figures of one side in a timeWrites phase.
type writeTimes struct {
	// latency holds the create+delete durations per writer.
	latency map[string][]time.Duration
	// cpuPerWrite is the CPU time (µs) a control-plane process spent per
	// create+delete during the phase, less its idle rate (idleCPU).
	cpuPerWrite map[string]float64
	// idleCPU is the CPU a control-plane process spends per second with no
	// writes, measured just before the phase (ms/s).
	idleCPU map[string]float64
}

// controlPlane are the processes whose CPU the scale workload follows.
var controlPlane = []string{"kube-apiserver", "etcd"}

// cpuNow samples the CPU seconds of the control-plane processes of e.
func cpuNow(e *env) map[string]float64 {
	out := map[string]float64{}
	for _, name := range controlPlane {
		if pid, ok := e.cluster.PID(name); ok {
			if v, ok := processCPUSeconds(pid); ok {
				out[name] = v
			}
		}
	}
	return out
}

// timeWrites runs c.scaleWrites rounds; in each, every writer of every side
// creates and deletes one ConfigMap, the writers and sides taking turns
// (starting one further each round). It returns per side the durations per
// writer and what the API server and etcd spent per write beyond their idle
// rate. CPU time is the steadier figure on a shared machine: other processes
// slow a write down, but do not make the API server work more for it.
func timeWrites(ctx context.Context, c config, sides []*side, tag string) (map[string]*writeTimes, error) {
	out := map[string]*writeTimes{}
	for _, s := range sides {
		out[s.name] = &writeTimes{latency: map[string][]time.Duration{}, cpuPerWrite: map[string]float64{}, idleCPU: map[string]float64{}}
	}
	const idleWindow = 5 * time.Second
	idle0 := map[string]map[string]float64{}
	for _, s := range sides {
		idle0[s.name] = cpuNow(s.env)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(idleWindow):
	}
	cpu0 := map[string]map[string]float64{}
	for _, s := range sides {
		cpu0[s.name] = cpuNow(s.env)
		for name, v := range cpu0[s.name] {
			out[s.name].idleCPU[name] = (v - idle0[s.name][name]) * 1e3 / idleWindow.Seconds()
		}
	}
	names := make([]string, len(sides[0].writers))
	for k, w := range sides[0].writers {
		names[k] = w.name
	}
	t0 := time.Now()
	lat, err := takeTurns(ctx, sideNames(sides), names, c.scaleWrites, func(ctx context.Context, si, k, i int) error {
		w := sides[si].writers[k]
		name := fmt.Sprintf("scale-%s-%d", tag, i)
		if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(ctx, configMap(name, 64), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create: %w", err)
		}
		if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, s := range sides {
		out[s.name].latency = lat[s.name]
	}
	elapsed := time.Since(t0).Seconds()
	for _, s := range sides {
		writes := float64(c.scaleWrites * len(s.writers))
		for name, after := range cpuNow(s.env) {
			busy := after - cpu0[s.name][name] - out[s.name].idleCPU[name]/1e3*elapsed
			out[s.name].cpuPerWrite[name] = busy * 1e6 / writes
		}
	}
	return out, nil
}

// takeTurns runs rounds rounds of the operations named names on every side
// (sides are names too; op gets the indexes) and returns how long each took,
// by side and operation. In a round the operations and sides take turns
// (each operation on one side, then on the next), starting one further each
// round, so that every side samples the same moments of the machine's noise
// and none always goes first.
func takeTurns(ctx context.Context, sides, names []string, rounds int, op func(ctx context.Context, side, k, i int) error) (map[string]map[string][]time.Duration, error) {
	type turn struct{ side, k int }
	var turns []turn
	out := map[string]map[string][]time.Duration{}
	for _, s := range sides {
		out[s] = map[string][]time.Duration{}
	}
	for k := range names {
		for si := range sides {
			turns = append(turns, turn{si, k})
		}
	}
	for i := range rounds {
		for j := range turns {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t := turns[(i+j)%len(turns)]
			start := time.Now()
			if err := op(ctx, t.side, t.k, i); err != nil {
				return nil, fmt.Errorf("%s, %s: %w", sides[t.side], names[t.k], err)
			}
			out[sides[t.side]][names[t.k]] = append(out[sides[t.side]][names[t.k]], time.Since(start))
		}
	}
	return out, nil
}

// sideNames names the sides for takeTurns.
func sideNames(sides []*side) []string {
	out := make([]string, len(sides))
	for i, s := range sides {
		out[i] = s.name
	}
	return out
}

// latencyRows turns paired durations into a p50 and a p99 row per
// operation: baseline from the side named few, scaled from the one named
// many.
func latencyRows(workload string, tenants int, lat map[string]map[string][]time.Duration, few, many string, names []string) []result {
	var out []result
	for _, name := range names {
		for _, p := range []struct {
			name string
			pct  float64
		}{{"p50", 50}, {"p99", 99}} {
			b, s := ms(percentile(lat[few][name], p.pct)), ms(percentile(lat[many][name], p.pct))
			out = append(out, result{Workload: workload, Metric: name + ", " + p.name, Unit: "ms",
				Baseline: &b, Scaled: &s, Tenants: tenants})
		}
	}
	return out
}
