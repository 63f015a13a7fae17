package main

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// spreadSides are the two tenants of the scale workload's other axis: one
// whose ConfigMaps lie in one namespace, one whose as many ConfigMaps are
// spread over c.spreadNamespaces namespaces.
var spreadSides = []string{"narrow", "wide"}

// spreadNamespace is the narrow tenant's one namespace.
const spreadNamespace = "one"

// spreadTenant is one of the two tenants, with its serve.
type spreadTenant struct {
	name string
	ep   *endpoint
	cs   *kubernetes.Clientset
	// ns is where a list or informer looks: the one namespace of the
	// narrow tenant, all namespaces ("") of the wide one.
	ns string
}

// runSpread measures the other axis, namespaces per tenant, on the cluster
// of e: an all-namespaces LIST and informer of ConfigMaps through serve for
// a tenant with c.spreadNamespaces namespaces, against a LIST and informer of
// the same number of ConfigMaps in one namespace of another tenant, taking
// turns; and how many upstream watches each informer holds open.
func runSpread(ctx context.Context, c config, e *env) ([]result, error) {
	var tenants []*spreadTenant
	defer func() {
		for _, t := range tenants {
			t.ep.stop()
		}
	}()
	for _, name := range spreadSides {
		if out, err := exec.CommandContext(ctx, c.zoo, "--kubeconfig", e.cluster.Kubeconfig, "tenant", "create", name).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("tenant create %s: %w: %s", name, err, out)
		}
		ep, err := startServe(ctx, c, e.cluster, e.dir, name)
		if ep != nil {
			tenants = append(tenants, &spreadTenant{name: name, ep: ep})
		}
		if err != nil {
			return nil, err
		}
	}
	narrow, wide := tenants[0], tenants[1]
	narrow.ns, wide.ns = spreadNamespace, ""
	for _, t := range tenants {
		cs, err := t.ep.client()
		if err != nil {
			return nil, err
		}
		t.cs = cs
	}
	n, wideNamespaces, err := fillSpread(ctx, c, e, narrow, wide)
	if err != nil {
		return nil, err
	}
	logf("spread: %d ConfigMaps in %d namespaces and in 1", n, c.spreadNamespaces)
	// The same lists as the tenant's identity directly upstream: what the
	// security model asks of the upstream for them, without the proxy.
	direct := make([]*upstreamLister, len(tenants))
	for i, local := range [][]string{{spreadNamespace}, wideNamespaces} {
		if direct[i], err = newUpstreamLister(e, tenants[i].name, local); err != nil {
			return nil, err
		}
	}

	workload := fmt.Sprintf("one tenant's %d ConfigMaps, through serve", n)
	row := func(metric, unit string, b, s float64) result {
		return result{Workload: workload, Metric: metric, Unit: unit, Baseline: &b, Scaled: &s, Namespaces: c.spreadNamespaces}
	}
	lists := []struct{ op, metric string }{
		{"LIST ConfigMaps", "LIST (all namespaces when spread)"},
		{"LIST ConfigMaps directly upstream", fmt.Sprintf("LIST as the tenant directly upstream (one per namespace, %d at once, when spread)", spreadLegsAtOnce)},
	}
	names := []string{lists[0].op, lists[1].op}
	lat, err := takeTurns(ctx, spreadSides, names, c.spreadLists, func(ctx context.Context, si, k, _ int) error {
		t := tenants[si]
		var got int
		if k == 0 {
			l, err := t.cs.CoreV1().ConfigMaps(t.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			got = len(l.Items)
		} else if got, err = direct[si].list(ctx); err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("the list holds %d ConfigMaps, want %d", got, n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []result
	for _, l := range lists {
		for _, p := range []struct {
			name string
			pct  float64
		}{{"p50", 50}, {"p99", 99}} {
			out = append(out, row(l.metric+", "+p.name, "ms",
				ms(percentile(lat["narrow"][l.op], p.pct)), ms(percentile(lat["wide"][l.op], p.pct))))
		}
	}

	syncs := map[string][]time.Duration{}
	watches := map[string][]float64{}
	for i := range c.spreadInformers {
		for j := range tenants {
			t := tenants[(i+j)%len(tenants)]
			d, w, err := runInformer(ctx, e, t, n)
			if err != nil {
				return nil, fmt.Errorf("%s informer: %w", t.name, err)
			}
			syncs[t.name] = append(syncs[t.name], d)
			watches[t.name] = append(watches[t.name], w)
		}
	}
	out = append(out, row("informer until synced, median", "ms", ms(percentile(syncs["narrow"], 50)), ms(percentile(syncs["wide"], 50))))
	out = append(out, row("upstream watches one informer holds open, median", "count", median(watches["narrow"]), median(watches["wide"])))
	return out, nil
}

// fillSpread gives the wide tenant c.spreadNamespaces namespaces (made
// through its serve) with c.spreadConfigMaps ConfigMaps in each besides
// kube-root-ca.crt, and the narrow tenant one namespace holding as many
// ConfigMaps as the wide tenant's all-namespaces list shows. The ConfigMaps
// are written upstream as the admin, which is quicker. It returns that
// number and the wide tenant's namespaces (their names in its view).
func fillSpread(ctx context.Context, c config, e *env, narrow, wide *spreadTenant) (int, []string, error) {
	nss, err := wide.cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, nil, err
	}
	missing := c.spreadNamespaces - len(nss.Items)
	if err := inParallel(ctx, missing, 8, func(i int) error {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("spread-%03d", i)}}
		_, err := wide.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		return err
	}); err != nil {
		return 0, nil, fmt.Errorf("wide: create namespaces: %w", err)
	}
	if nss, err = wide.cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		return 0, nil, err
	}
	if len(nss.Items) != c.spreadNamespaces {
		return 0, nil, fmt.Errorf("wide has %d namespaces, want %d", len(nss.Items), c.spreadNamespaces)
	}
	if err := inParallel(ctx, len(nss.Items)*c.spreadConfigMaps, 8, func(i int) error {
		ns := wide.name + "-" + nss.Items[i/c.spreadConfigMaps].Name
		_, err := e.admin.CoreV1().ConfigMaps(ns).Create(ctx, configMap(fmt.Sprintf("spread-%d", i%c.spreadConfigMaps), 256), metav1.CreateOptions{})
		return err
	}); err != nil {
		return 0, nil, fmt.Errorf("wide: create ConfigMaps: %w", err)
	}
	if _, err := narrow.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: spreadNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return 0, nil, fmt.Errorf("narrow: create namespace: %w", err)
	}
	// Every namespace gets its kube-root-ca.crt from the controller-manager.
	want := len(nss.Items) * (c.spreadConfigMaps + 1)
	var n int
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := wide.cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n = len(l.Items)
		root, err := narrow.cs.CoreV1().ConfigMaps(spreadNamespace).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return n >= want && root != nil && err == nil, nil
	}); err != nil {
		return 0, nil, fmt.Errorf("wait for kube-root-ca.crt in every namespace (%d of %d ConfigMaps): %w", n, want, err)
	}
	if err := inParallel(ctx, n-1, 8, func(i int) error {
		_, err := e.admin.CoreV1().ConfigMaps(narrow.name+"-"+spreadNamespace).Create(ctx, configMap(fmt.Sprintf("spread-%d", i), 256), metav1.CreateOptions{})
		return err
	}); err != nil {
		return 0, nil, fmt.Errorf("narrow: create ConfigMaps: %w", err)
	}
	local := make([]string, len(nss.Items))
	for i, ns := range nss.Items {
		local[i] = ns.Name
	}
	return n, local, nil
}

// runInformer starts a ConfigMap informer of t through its serve, returns
// how long it took to sync (to hold all n ConfigMaps), and how many more
// watches the upstream serves while it runs; it stops the informer and waits
// for those watches to end.
func runInformer(ctx context.Context, e *env, t *spreadTenant, n int) (time.Duration, float64, error) {
	before, err := upstreamWatches(ctx, e)
	if err != nil {
		return 0, 0, err
	}
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	lw := cache.NewListWatchFromClient(t.cs.CoreV1().RESTClient(), translate.ResourceOf("", "ConfigMap"), t.ns, fields.Everything())
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	start := time.Now()
	go informer.RunWithContext(ictx)
	// Polled every millisecond: cache.WaitForCacheSync polls every 100 ms,
	// which would round every figure up to a multiple of 100 ms.
	if err := wait.PollUntilContextCancel(ictx, time.Millisecond, true, func(context.Context) (bool, error) {
		return informer.HasSynced(), nil
	}); err != nil {
		return 0, 0, fmt.Errorf("did not sync: %w", err)
	}
	synced := time.Since(start)
	if got := len(informer.GetStore().List()); got != n {
		return 0, 0, fmt.Errorf("holds %d ConfigMaps, want %d", got, n)
	}
	// The informer's watch opens after its list: wait until the count
	// stops changing for a second.
	var open float64
	var last float64 = -1
	stable := 0
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		now, err := upstreamWatches(ctx, e)
		if err != nil {
			return false, err
		}
		open = now - before
		if now == last && open > 0 {
			stable++
		} else {
			stable = 0
		}
		last = now
		return stable >= 4, nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("count its upstream watches (last %v more than before): %w", open, err)
	}
	cancel()
	// Other clients' watches come and go too (each ends after a timeout and
	// is opened again): allow one.
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		now, err := upstreamWatches(ctx, e)
		return now <= before+1, err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("its upstream watches did not end: %w", err)
	}
	return synced, open, nil
}
