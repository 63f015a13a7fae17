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
	type turn struct {
		s *side
		w *writer
	}
	var turns []turn
	for k := range sides[0].writers {
		for _, s := range sides {
			turns = append(turns, turn{s, s.writers[k]})
		}
	}
	t0 := time.Now()
	for i := range c.scaleWrites {
		for k := range turns {
			t := turns[(i+k)%len(turns)]
			name := fmt.Sprintf("scale-%s-%d", tag, i)
			start := time.Now()
			if _, err := t.w.cs.CoreV1().ConfigMaps(t.w.ns).Create(ctx, configMap(name, 64), metav1.CreateOptions{}); err != nil {
				return nil, fmt.Errorf("%s, %s: create: %w", t.s.name, t.w.name, err)
			}
			if err := t.w.cs.CoreV1().ConfigMaps(t.w.ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				return nil, fmt.Errorf("%s, %s: delete: %w", t.s.name, t.w.name, err)
			}
			out[t.s.name].latency[t.w.name] = append(out[t.s.name].latency[t.w.name], time.Since(start))
		}
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
