package proxy_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// TestWatchListThroughTheView: client-go's streaming lists
// (WatchListClient) over all of a tenant's namespaces, through serve and
// through the server. The informer's store holds every object when it
// reports synced, from one stream (no list), then sees creates and deletes
// in any namespace; a raw streaming watch gets exactly one
// initial-events-end bookmark after all initial objects, and a watch from
// that bookmark's resourceVersion loses nothing. Nothing of beta's, which
// has namespaces of the same names, shows.
func TestWatchListThroughTheView(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	acme, beta := serve(t, "acme"), serve(t, "beta")
	nss := []string{"wl-a", "wl-b", "wl-c"}
	for _, ns := range nss {
		for _, s := range []*served{acme, beta} {
			s.k(t, "create", "namespace", ns)
			t.Cleanup(func() { s.run(t, "", "delete", "namespace", ns, "--wait=false") })
		}
		for i := range 4 {
			acme.k(t, "-n", ns, "create", "configmap", fmt.Sprintf("cm-%d", i), "--from-literal=v=acme")
		}
		beta.k(t, "-n", ns, "create", "configmap", "from-beta", "--from-literal=v=beta")
		acme.k(t, "-n", ns, "label", "configmap", "--all", "wl=1")
		beta.k(t, "-n", ns, "label", "configmap", "--all", "wl=1")
	}
	// Many more in one namespace: its initial events are still coming when
	// the other legs have sent theirs.
	var many strings.Builder
	for i := range 60 {
		fmt.Fprintf(&many, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: many-%02d, namespace: wl-b, labels: {wl: \"1\"}}\ndata: {v: acme}\n", i)
	}
	acme.apply(t, many.String())
	lb := servers(t)
	for i, view := range []*served{acme, viaServer(t, lb, "acme")} {
		name := []string{"serve", "server"}[i]
		t.Run(name+": informer", func(t *testing.T) { watchListInformer(t, view, nss[i], nss[2], name) })
		t.Run(name+": raw watch", func(t *testing.T) { watchListRaw(t, view, nss, name) })
	}
}

// requestLog records the requests of the resource a client sends.
type requestLog struct {
	resource string
	mu       sync.Mutex
	sent     []string
	next     http.RoundTripper
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/"+l.resource) {
		l.mu.Lock()
		l.sent = append(l.sent, r.URL.RawQuery)
		l.mu.Unlock()
	}
	return l.next.RoundTrip(r)
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sent)
}

// labelled lists the configmaps labelled wl=1 through cs, as ns/name keys.
func labelled(t *testing.T, cs kubernetes.Interface) []string {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{LabelSelector: "wl=1"})
	require.NoError(t, err)
	var keys []string
	for _, cm := range list.Items {
		keys = append(keys, cm.Namespace+"/"+cm.Name)
	}
	slices.Sort(keys)
	return keys
}

// watchListConfig is a client configuration for s that logs the requests
// of resource it sends.
func watchListConfig(t *testing.T, s *served, resource string) (*rest.Config, *requestLog) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	log := &requestLog{resource: resource}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { log.next = rt; return log })
	return cfg, log
}

// syncedWith starts inf (start), waits until it says synced and returns
// the keys of the objects of its initial list, which were its store's when
// it said so (what comes later is no longer initial); every add and delete
// goes to on as well. Every request log saw was a streaming list.
func syncedWith(t *testing.T, ctx context.Context, inf cache.SharedIndexInformer, start func(<-chan struct{}), log *requestLog, on func(typ string, o any)) []string {
	t.Helper()
	var (
		mu      sync.Mutex
		initial []string
	)
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(o any, isInInitialList bool) {
			if isInInitialList {
				key, _ := cache.MetaNamespaceKeyFunc(o)
				mu.Lock()
				initial = append(initial, key)
				mu.Unlock()
			}
			on("ADD", o)
		},
		DeleteFunc: func(o any) { on("DELETE", o) },
	})
	require.NoError(t, err)
	start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced, reg.HasSynced))
	sent := log.all()
	require.NotEmpty(t, sent)
	for _, q := range sent {
		assert.Contains(t, q, "sendInitialEvents=true", "a request that is no streaming list: %v", sent)
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Sorted(slices.Values(initial))
}

func watchListInformer(t *testing.T, s *served, deleteIn, createIn, name string) {
	cfg, log := watchListConfig(t, s, "configmaps")
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	want := labelled(t, clientFor(t, s))
	require.Contains(t, want, "wl-c/cm-3")

	ev := &events{}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "wl=1" }))
	ctx, cancel := context.WithCancel(t.Context())
	defer func() { cancel(); factory.Shutdown() }()
	got := syncedWith(t, ctx, factory.Core().V1().ConfigMaps().Informer(), factory.Start, log, ev.add)
	assert.Equal(t, want, got, "the store when the informer said synced")

	cms := cs.CoreV1().ConfigMaps(createIn)
	later := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "later-" + name, Labels: map[string]string{"wl": "1"}}, Data: map[string]string{"v": "later"}}
	_, err = cms.Create(ctx, later, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cs.CoreV1().ConfigMaps(deleteIn).Delete(ctx, "cm-0", metav1.DeleteOptions{}))
	for _, e := range []string{"ADD " + createIn + "/later-" + name + "=later", "DELETE " + deleteIn + "/cm-0=acme"} {
		require.Eventually(t, func() bool { return ev.has(e) }, 30*time.Second, 100*time.Millisecond, "never saw %q; saw %v", e, ev.all())
	}
	for _, g := range ev.all() {
		assert.NotContains(t, g, "beta", "the informer saw the other tenant")
	}
}

func watchListRaw(t *testing.T, s *served, nss []string, name string) {
	cs := clientFor(t, s)
	want := labelled(t, cs)
	// Bounds the watches below should an event never come.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{LabelSelector: "wl=1", SendInitialEvents: new(true),
		AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	require.NoError(t, err)
	defer w.Stop()
	var initial []string
	bookmarks, rv := 0, ""
	marks := map[string]bool{}
	for ev := range w.ResultChan() {
		require.NotEqual(t, watch.Error, ev.Type, "%v", ev.Object)
		cm := ev.Object.(*corev1.ConfigMap)
		assert.NotEqual(t, "beta", cm.Data["v"], "beta's object %s/%s", cm.Namespace, cm.Name)
		switch {
		case ev.Type == watch.Bookmark && cm.Annotations[metav1.InitialEventsAnnotationKey] == "true":
			bookmarks++
			assert.Empty(t, cm.Name+cm.Namespace, "a bookmark names no object")
			if rv == "" {
				rv = cm.ResourceVersion
				// After the bookmark: one new object in each namespace,
				// which comes after every leg's own end of initial events.
				for _, ns := range nss {
					s.k(t, "-n", ns, "create", "configmap", "mark-"+name, "--from-literal=v=mark")
					s.k(t, "-n", ns, "label", "configmap", "mark-"+name, "wl=1")
				}
			}
		case rv == "":
			initial = append(initial, cm.Namespace+"/"+cm.Name)
		case cm.Name == "mark-"+name:
			marks[cm.Namespace] = true
		}
		if len(marks) == len(nss) {
			break
		}
	}
	slices.Sort(initial)
	assert.Equal(t, want, initial, "the initial events")
	assert.Equal(t, 1, bookmarks, "initial-events-end bookmarks")

	// A client resuming from the bookmark loses none of what came after.
	resumed, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{LabelSelector: "wl=1", ResourceVersion: rv})
	require.NoError(t, err)
	defer resumed.Stop()
	again := map[string]bool{}
	for ev := range resumed.ResultChan() {
		require.NotEqual(t, watch.Error, ev.Type, "%v", ev.Object)
		if cm := ev.Object.(*corev1.ConfigMap); cm.Name == "mark-"+name {
			again[cm.Namespace] = true
		}
		if len(again) == len(nss) {
			break
		}
	}
	assert.Len(t, again, len(nss))
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.wl.example.com}
spec:
  group: wl.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// TestWatchListCustomResources: a dynamic informer of a tenant's custom
// resource (whose kind the kinds table does not know) syncs with every
// object from a streaming list over all namespaces, through serve and
// through the server; beta, with the same CRD and namespaces, shows not.
func TestWatchListCustomResources(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	acme, beta := serve(t, "acme"), serve(t, "beta")
	var widgets strings.Builder
	for _, ns := range []string{"wlc-a", "wlc-b", "wlc-c"} {
		for i := range 3 {
			fmt.Fprintf(&widgets, "---\napiVersion: wl.example.com/v1\nkind: Widget\nmetadata: {name: w%d, namespace: %s}\n", i, ns)
		}
	}
	for _, s := range []*served{acme, beta} {
		s.apply(t, widgetCRD)
		t.Cleanup(func() { s.run(t, "", "delete", "crd", "widgets.wl.example.com", "--wait=false") })
		s.k(t, "wait", "crd/widgets.wl.example.com", "--for=condition=Established", "--timeout=60s")
		for _, ns := range []string{"wlc-a", "wlc-b", "wlc-c"} {
			s.k(t, "create", "namespace", ns)
			t.Cleanup(func() { s.run(t, "", "delete", "namespace", ns, "--wait=false") })
		}
	}
	require.Eventually(t, func() bool { return acme.run(t, widgets.String(), "apply", "-f", "-").Err == nil },
		30*time.Second, 500*time.Millisecond, "the widgets could not be made")
	beta.apply(t, "apiVersion: wl.example.com/v1\nkind: Widget\nmetadata: {name: from-beta, namespace: wlc-a}\n")
	gvr := schema.GroupVersionResource{Group: "wl.example.com", Version: "v1", Resource: "widgets"}
	lb := servers(t)
	for i, view := range []*served{acme, viaServer(t, lb, "acme")} {
		t.Run([]string{"serve", "server"}[i], func(t *testing.T) {
			cfg, log := watchListConfig(t, view, "widgets")
			dc, err := dynamic.NewForConfig(cfg)
			require.NoError(t, err)
			plainCfg, err := clientcmd.BuildConfigFromFlags("", view.Kubeconfig)
			require.NoError(t, err)
			plain, err := dynamic.NewForConfig(plainCfg)
			require.NoError(t, err)
			list, err := plain.Resource(gvr).List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err)
			var want []string
			for _, w := range list.Items {
				want = append(want, w.GetNamespace()+"/"+w.GetName())
			}
			slices.Sort(want)
			require.Len(t, want, 9)

			factory := dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
			ctx, cancel := context.WithCancel(t.Context())
			defer func() { cancel(); factory.Shutdown() }()
			got := syncedWith(t, ctx, factory.ForResource(gvr).Informer(), factory.Start, log, func(string, any) {})
			assert.Equal(t, want, got, "the store when the informer said synced")
		})
	}
}
