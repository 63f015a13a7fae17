package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fleetWriteNamespace is the tenant-local namespace the fleet's writes go
// to: each reaches every ConfigMap watch of its tenant there.
const fleetWriteNamespace = "default"

// fleetDrain bounds the wait for the events of the last writes.
const fleetDrain = 30 * time.Second

// fleetWrite is one write of the fleet's load and when it started (the
// event often arrives before the write's answer).
type fleetWrite struct {
	name   string
	tenant int
	at     time.Time
}

// step brings the fleet from prev to w watches on each side and measures
// it under the write load; before are the replica's figures at prev
// watches (serverFiguresOf). It returns its rows and the replica's figures
// now.
func (f *fleet) step(ctx context.Context, c config, w, prev int, before map[string]float64) ([]result, map[string]float64, error) {
	figs := map[string]map[string]float64{}
	set := func(metric, side string, v float64) {
		if figs[metric] == nil {
			figs[metric] = map[string]float64{}
		}
		figs[metric][side] = v
	}
	for _, s := range f.sides {
		cpu0, _ := f.server.cpuSeconds()
		t0 := time.Now()
		if err := f.open(ctx, s, w); err != nil {
			return nil, nil, err
		}
		set("open the added watches (LIST+WATCH), wall time", s.name, time.Since(t0).Seconds())
		if cpu1, ok := f.server.cpuSeconds(); ok && s.name == "server" {
			set("replica CPU, opening the added watches", s.name, cpu1-cpu0)
		}
	}
	f.opened(w)
	cpu0, _ := f.server.cpuSeconds()
	writes, err := f.write(ctx, c, w)
	if err != nil {
		return nil, nil, err
	}
	if cpu1, ok := f.server.cpuSeconds(); ok {
		set(fleetWritesCPU, "server", cpu1-cpu0)
	}
	lat, missing := f.drain(ctx, writes)
	for _, s := range f.sides {
		set("event latency p50", s.name, ms(percentile(lat[s.name], 50)))
		set("event latency p99", s.name, ms(percentile(lat[s.name], 99)))
		set("events timed", s.name, float64(len(lat[s.name])))
		set("events not delivered", s.name, float64(missing[s.name]))
	}
	m, err := serverOwnMetrics(ctx, f.e, f.server)
	if err != nil {
		return nil, nil, err
	}
	now := serverFiguresOf(m, f.server)
	if c.profiles != "" {
		if err := f.server.saveProfiles(ctx, c.profiles, fmt.Sprintf("fleet-%d-watches", w)); err != nil {
			logf("fleet: saving the replica's profiles: %v", err)
		}
	}
	set("replica RSS", "server", now["RSS"]/1024)
	set("replica RSS per added watch", "server", (now["RSS"]-before["RSS"])/float64(w-prev))
	set("replica "+serverLiveHeap, "server", now[serverLiveHeap]/1024)
	set("replica live heap per added watch", "server", (now[serverLiveHeap]-before[serverLiveHeap])/float64(w-prev))
	set("replica goroutines", "server", now["goroutines"])
	set("replica identities' proxies held", "server", now["identities' proxies held"])
	set("watches listed and watched again after they ended", "server", float64(f.reopened.Load()))
	logf("fleet: %d watches: replica RSS %.0f MiB, event p99 %.1f ms through it, %.1f ms directly", w, now["RSS"]/1024,
		figs["event latency p99"]["server"], figs["event latency p99"]["direct"])
	var out []result
	for _, metric := range fleetMetrics {
		if v, ok := figs[metric.name]; ok {
			out = append(out, fleetRow(c, w, metric.name, metric.unit, v))
		}
	}
	return out, now, nil
}

// fleetWritesCPU is the replica's CPU time while the writes of a step run
// (-fleet-duration).
const fleetWritesCPU = "replica CPU during the writes (-fleet-duration)"

// fleetMetrics are the figures of a step in the order of its rows.
var fleetMetrics = []struct{ name, unit string }{
	{"event latency p50", "ms"},
	{"event latency p99", "ms"},
	{"events timed", "count"},
	{"events not delivered", "count"},
	{"open the added watches (LIST+WATCH), wall time", "s"},
	{"replica CPU, opening the added watches", "s"},
	{fleetWritesCPU, "s"},
	{"replica RSS", "MiB"},
	{"replica RSS per added watch", "KiB"},
	{"replica " + serverLiveHeap, "MiB"},
	{"replica live heap per added watch", "KiB"},
	{"replica goroutines", "count"},
	{"replica identities' proxies held", "count"},
	{"watches listed and watched again after they ended", "count"},
}

// write creates ConfigMaps as the cluster admin, directly upstream, at
// c.fleetWriteRate for c.fleetDuration, round the tenants, in each one's
// fleetWriteNamespace.
func (f *fleet) write(ctx context.Context, c config, w int) ([]fleetWrite, error) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / c.fleetWriteRate))
	defer tick.Stop()
	end := time.After(c.fleetDuration)
	var done []fleetWrite
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-end:
			return done, nil
		case <-tick.C:
		}
		t := i % len(f.tenants)
		wr := fleetWrite{name: fmt.Sprintf("%s%d-%d", fleetWritePrefix, w, i), tenant: t, at: time.Now()}
		ns := f.tenants[t].Prefix() + fleetWriteNamespace
		if _, err := f.e.admin.CoreV1().ConfigMaps(ns).Create(ctx, configMap(wr.name, 64), metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("write %s in %s: %w", wr.name, ns, err)
		}
		done = append(done, wr)
	}
}

// drain waits (up to fleetDrain) until every write's events arrived on
// every ConfigMap watch of its tenant in fleetWriteNamespace on each side,
// and returns the latencies per side and the events that did not arrive.
func (f *fleet) drain(ctx context.Context, writes []fleetWrite) (map[string][]time.Duration, map[string]int) {
	deadline := time.Now().Add(fleetDrain)
	for _, w := range writes {
		for _, s := range f.sides {
			for f.arrivals.count(w.name, s.name) < f.cmWatches[w.tenant] && time.Now().Before(deadline) && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	lat, missing := map[string][]time.Duration{}, map[string]int{}
	for _, w := range writes {
		got := f.arrivals.take(w.name)
		for _, s := range f.sides {
			for _, at := range got[s.name] {
				lat[s.name] = append(lat[s.name], at.Sub(w.at))
			}
			missing[s.name] += f.cmWatches[w.tenant] - len(got[s.name])
		}
	}
	return lat, missing
}

// fleetRow is a row of the fleet at w watches with the figures by column.
func fleetRow(c config, w int, metric, unit string, by map[string]float64) result {
	r := result{Workload: fmt.Sprintf("fleet: %d watches of %d tenants on one server replica", w, c.fleetTenants),
		Metric: metric, Unit: unit, Watches: w}
	for col, v := range by {
		r.set(col, v)
	}
	return r
}
