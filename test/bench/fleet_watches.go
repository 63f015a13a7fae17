package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// fleetWritePrefix starts the names of the ConfigMaps the fleet's writes
// create; the watches time the ADDED events of those alone.
const fleetWritePrefix = "fleet-"

// open opens the watches that bring every tenant from its share of the
// watches held so far to its share of w, on side s, fleetOpenParallel at
// a time.
func (f *fleet) open(ctx context.Context, s *fleetSide, w int) error {
	type pending struct{ tenant, k int }
	var todo []pending
	for i := range f.tenants {
		for k := f.held[i]; k < fleetShare(w, len(f.tenants), i); k++ {
			todo = append(todo, pending{i, k})
		}
	}
	return inParallel(ctx, len(todo), fleetOpenParallel, func(j int) error {
		p := todo[j]
		kind, ns := fleetWatchOf(p.k)
		if s.upstreamNames {
			ns = f.tenants[p.tenant].Prefix() + ns
		}
		lw := cache.NewListWatchFromClient(s.clients[p.tenant].CoreV1().RESTClient(), kind, ns, fields.Everything())
		wi, err := listAndWatch(ctx, lw)
		if err != nil {
			return fmt.Errorf("%s: tenant %s: %s in %s: %w", s.name, f.tenants[p.tenant].Name(), kind, ns, err)
		}
		go f.hold(s.name, lw, wi)
		return nil
	})
}

// opened records that every tenant now holds its share of w watches on
// each side.
func (f *fleet) opened(w int) {
	for i := range f.tenants {
		for k := f.held[i]; k < fleetShare(w, len(f.tenants), i); k++ {
			if kind, ns := fleetWatchOf(k); kind == fleetConfigMaps && ns == fleetWriteNamespace {
				f.cmWatches[i]++
			}
		}
		f.held[i] = fleetShare(w, len(f.tenants), i)
	}
}

// listAndWatch lists and watches as a reflector starts: a LIST from the
// watch cache (resourceVersion 0, pages of 500), then a WATCH from the
// list's resourceVersion with bookmarks.
func listAndWatch(ctx context.Context, lw *cache.ListWatch) (watch.Interface, error) {
	list, err := lw.ListWithContext(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 500})
	if err != nil {
		return nil, err
	}
	m, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	return lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: m.GetResourceVersion(), AllowWatchBookmarks: true})
}

// hold receives the events of w until the fleet stops; a watch that ends
// before is listed and watched again, as a reflector does, and counted.
func (f *fleet) hold(side string, lw *cache.ListWatch, w watch.Interface) {
	for {
		f.receive(side, w)
		if f.watching.Err() != nil {
			return
		}
		f.reopened.Add(1)
		for {
			var err error
			if w, err = listAndWatch(f.watching, lw); err == nil {
				break
			}
			if f.watching.Err() != nil {
				return
			}
			logf("fleet: %s: watch again: %v", side, err)
			time.Sleep(time.Second)
		}
	}
}

// receive stamps the ADDED events of the fleet's writes as they come out
// of w, until w ends or reports an error.
func (f *fleet) receive(side string, w watch.Interface) {
	defer w.Stop()
	for ev := range w.ResultChan() {
		at := time.Now()
		switch ev.Type {
		case watch.Error:
			return
		case watch.Added:
			if m, err := meta.Accessor(ev.Object); err == nil && strings.HasPrefix(m.GetName(), fleetWritePrefix) {
				f.arrivals.add(side, m.GetName(), at)
			}
		}
	}
}

// fleetArrivals are the times the events of each write arrived, per side.
type fleetArrivals struct {
	mu sync.Mutex
	at map[string]map[string][]time.Time // write -> side -> arrivals
}

func newFleetArrivals() *fleetArrivals {
	return &fleetArrivals{at: map[string]map[string][]time.Time{}}
}

func (a *fleetArrivals) add(side, name string, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at[name] == nil {
		a.at[name] = map[string][]time.Time{}
	}
	a.at[name][side] = append(a.at[name][side], at)
}

// count is how many events of the write name arrived on side.
func (a *fleetArrivals) count(name, side string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at[name][side])
}

// take returns the arrivals of the write name and forgets them.
func (a *fleetArrivals) take(name string) map[string][]time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := a.at[name]
	delete(a.at, name)
	return got
}
