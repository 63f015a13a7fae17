package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// upstreamCost are the figures of what one side's upstream holds.
type upstreamCost struct {
	// objects counts the stored objects per resource ("resource.group").
	objects map[string]float64
	// figures are the sizes: etcd's database, the processes' memory.
	figures map[string]float64
}

// costFigures are the size figures in the order of the table, with units.
var costFigures = []struct{ name, unit string }{
	{"etcd database in use, history compacted", "KiB"},
	{"etcd database file", "KiB"},
	{"kube-apiserver RSS", "MiB"},
	{"kube-apiserver Go heap in use", "MiB"},
	{"kubectl zoo serve RSS (bench tenant, after the reads)", "MiB"},
}

// measureCost compares what the two sides' upstreams hold: objects of every
// kind, etcd's database, kube-apiserver's memory, and the memory of the
// bench tenant's serve. The sides differ only in their tenants, so the
// difference divided by the difference in tenants is what a tenant costs.
func measureCost(ctx context.Context, c config, sides []*side) ([]result, error) {
	costs := make([]*upstreamCost, len(sides))
	for i, s := range sides {
		cost, err := s.cost(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		costs[i] = cost
	}
	few, many := costs[0], costs[1]
	perTenant := func(b, s float64) *float64 {
		v := (s - b) / float64(c.tenants-2)
		return &v
	}
	row := func(metric, unit string, b, s float64) result {
		return result{Workload: "what the upstream holds", Metric: metric, Unit: unit,
			Baseline: &b, Scaled: &s, Tenants: c.tenants, PerTenant: perTenant(b, s)}
	}
	var out []result
	var totalFew, totalMany float64
	var kinds []string
	for kind, n := range many.objects {
		totalFew += few.objects[kind]
		totalMany += n
		if n != few.objects[kind] {
			kinds = append(kinds, kind)
		}
	}
	slices.Sort(kinds)
	out = append(out, row("objects, every kind", "count", totalFew, totalMany))
	for _, kind := range kinds {
		out = append(out, row("objects: "+kind, "count", few.objects[kind], many.objects[kind]))
	}
	for _, f := range costFigures {
		b, okB := few.figures[f.name]
		s, okS := many.figures[f.name]
		if okB && okS {
			out = append(out, row(f.name, f.unit, b, s))
		}
	}
	return out, nil
}

// cost measures one side: it compacts etcd's history first, so that the
// database holds the live objects, and lets the API server settle.
func (s *side) cost(ctx context.Context) (*upstreamCost, error) {
	e := s.env
	if err := compactEtcd(ctx, e); err != nil {
		return nil, err
	}
	objects, err := countObjects(ctx, e)
	if err != nil {
		return nil, err
	}
	out := &upstreamCost{objects: objects, figures: map[string]float64{}}
	em, err := etcdMetrics(ctx, e)
	if err != nil {
		return nil, err
	}
	for name, metric := range map[string]string{
		"etcd database in use, history compacted": "etcd_mvcc_db_total_size_in_use_in_bytes",
		"etcd database file":                      "etcd_mvcc_db_total_size_in_bytes",
	} {
		v, ok := metricSum(em, metric, nil)
		if !ok {
			return nil, fmt.Errorf("etcd serves no %s", metric)
		}
		out.figures[name] = v / 1024
	}
	if pid, ok := e.cluster.PID("kube-apiserver"); ok {
		if rss, _, ok := processRSSKiB(pid); ok {
			out.figures["kube-apiserver RSS"] = rss / 1024
		}
	}
	am, err := apiserverMetrics(ctx, e)
	if err != nil {
		return nil, err
	}
	if v, ok := metricSum(am, "go_memstats_heap_inuse_bytes", nil); ok {
		out.figures["kube-apiserver Go heap in use"] = v / (1 << 20)
	}
	for _, ep := range e.endpoints {
		if ep.name != "proxied" {
			continue
		}
		if rss, _, ok := ep.rssKiB(); ok {
			out.figures["kubectl zoo serve RSS (bench tenant, after the reads)"] = rss / 1024
		}
	}
	return out, nil
}

// countObjects counts the stored objects of every listable resource, by
// "resource.group" (core resources without a group). A list with limit=1
// tells the count in remainingItemCount; where it does not, the objects are
// paged through as metadata. events.k8s.io's Events are the core Events
// again and are left out.
func countObjects(ctx context.Context, e *env) (map[string]float64, error) {
	lists, err := e.admin.Discovery().ServerPreferredResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	cfg := rest.CopyConfig(e.cluster.Config)
	cfg.QPS, cfg.Burst = -1, 0 // one list per kind, no need to pace them
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	out := map[string]float64{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, err
		}
		if gv.Group == "events.k8s.io" {
			continue
		}
		for _, r := range list.APIResources {
			if !slices.Contains(r.Verbs, "list") {
				continue
			}
			n, err := countResource(ctx, md.Resource(gv.WithResource(r.Name)).Namespace(metav1.NamespaceAll))
			if err != nil {
				return nil, fmt.Errorf("count %s: %w", r.Name, err)
			}
			key := r.Name
			if gv.Group != "" {
				key += "." + gv.Group
			}
			out[key] = n
		}
	}
	return out, nil
}

func countResource(ctx context.Context, r metadata.ResourceInterface) (float64, error) {
	var n float64
	opts := metav1.ListOptions{Limit: 1}
	for {
		l, err := r.List(ctx, opts)
		if err != nil {
			return 0, err
		}
		n += float64(len(l.Items))
		if l.Continue == "" {
			return n, nil
		}
		if l.RemainingItemCount != nil {
			return n + float64(*l.RemainingItemCount), nil
		}
		opts = metav1.ListOptions{Limit: 500, Continue: l.Continue}
	}
}
