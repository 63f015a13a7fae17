package localproxy

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// NamespaceIndex holds the tenants' upstream namespaces, kept by one watch,
// so that what a proxy needs of them (a tenant's `get namespaces`, the
// namespaces an all-namespaces request is fanned out over) costs no LIST
// upstream. The API server keeps no index of labels: a LIST of a tenant's
// namespaces by label filters every namespace of the cluster, so it grows
// with the number of tenants; the watch costs the API server a filter per
// namespace event instead.
//
// What it answers is as fresh as the watch, which is milliseconds behind
// the upstream, and never older than a namespace write a proxy sharing the
// index has seen answered (NoteWrite, WaitFor): a client reads its own
// writes. The resourceVersion it gives is the last one the watch reported
// (an event or a bookmark), at which everything it holds is exact, so a
// client can watch from it upstream.
//
// `kubectl zoo serve` watches its tenant's namespaces; the server watches
// every tenant's namespace once for all its proxies (Config.Namespaces).
type NamespaceIndex struct {
	mu       sync.Mutex
	byTenant map[string]map[string]*corev1.Namespace // tenant label → upstream name → namespace
	tenantOf map[string]string                       // upstream name → tenant label
	rv       uint64
	rvText   string
	synced   bool
	// written is, by tenant, the highest resourceVersion of a namespace
	// write a proxy noted (NoteWrite): answers wait until the watch has
	// reached it. By tenant, so that no tenant's writes hold another's
	// answers up.
	written map[string]uint64
	// changed is closed (and replaced) whenever rv moves.
	changed chan struct{}
}

// writeWait bounds how long an answer waits for the watch to reach a
// namespace write the proxy made; past it the proxy asks the upstream.
const writeWait = 5 * time.Second

// WatchNamespaces returns an index of tenant's upstream namespaces (every
// tenant's when tenant is ""), watched with cfg's identity until ctx ends.
// It returns at once, before the first list (Namespaces answers not ok
// until then); the watch restarts by itself after failures. When that
// identity may not list and watch namespaces cluster-wide (an upstream
// user serving its own tenant identity), it returns nil: the proxy lists
// them each time, and is refused as before.
func WatchNamespaces(ctx context.Context, cfg *rest.Config, tenant string) (*NamespaceIndex, error) {
	selector := translate.TenantLabel
	if tenant != "" {
		t, err := translate.NewTenant(tenant)
		if err != nil {
			return nil, err
		}
		selector = translate.TenantLabel + "=" + t.Name()
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("namespace index client: %w", err)
	}
	for _, verb := range []string{"list", "watch"} {
		review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: verb, Resource: namespacesResource.Resource}}}, metav1.CreateOptions{})
		if err != nil {
			klog.ErrorS(err, "cannot ask whether namespaces may be watched: the tenant's are listed for each request")
			return nil, nil
		}
		if !review.Status.Allowed {
			klog.V(1).InfoS("this identity may not "+verb+" namespaces: the tenant's are listed for each request", "tenant", tenant)
			return nil, nil
		}
	}
	x := newNamespaceIndex()
	x.run(ctx, cs, selector)
	return x, nil
}

func newNamespaceIndex() *NamespaceIndex {
	return &NamespaceIndex{byTenant: map[string]map[string]*corev1.Namespace{}, tenantOf: map[string]string{},
		written: map[string]uint64{}, changed: make(chan struct{})}
}

// run starts the watch of the namespaces labelSelector selects.
func (x *NamespaceIndex) run(ctx context.Context, cs kubernetes.Interface, labelSelector string) {
	lw := cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), namespacesResource.Resource, metav1.NamespaceAll,
		func(o *metav1.ListOptions) {
			o.LabelSelector = labelSelector
			o.FieldSelector = fields.Everything().String()
		})
	// A failed list or watch leaves the index unsynced (answers come from
	// the upstream) until the reflector's next list is in (Replace).
	list, watchFn := lw.ListWithContextFunc, lw.WatchFuncWithContext
	unsynced := func(err error) {
		if err != nil {
			x.mu.Lock()
			x.synced = false
			x.mu.Unlock()
		}
	}
	lw = &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			obj, err := list(ctx, o)
			unsynced(err)
			return obj, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := watchFn(ctx, o)
			unsynced(err)
			return w, err
		},
	}
	r := cache.NewReflectorWithOptions(lw, &corev1.Namespace{}, (*namespaceStore)(x),
		cache.ReflectorOptions{Name: "kubectl-zoo namespace index " + labelSelector})
	go r.RunWithContext(ctx)
	klog.V(2).InfoS("watching namespaces", "labelSelector", labelSelector)
}

// Namespaces returns the namespaces labeled as tenant's, sorted by name,
// and the resourceVersion at which they are exact. ok is false when the
// index cannot answer: not synced (not listed yet, or its watch failed),
// or behind a write the proxy noted for longer than writeWait (or ctx);
// the caller asks the upstream.
// The objects are shared: never modify them.
func (x *NamespaceIndex) Namespaces(ctx context.Context, tenant string) (nss []*corev1.Namespace, rv string, ok bool) {
	if !x.waitWritten(ctx, tenant) {
		return nil, "", false
	}
	x.mu.Lock()
	for _, ns := range x.byTenant[tenant] {
		nss = append(nss, ns)
	}
	rv = x.rvText
	x.mu.Unlock()
	sort.Slice(nss, func(i, j int) bool { return nss[i].Name < nss[j].Name })
	return nss, rv, true
}

// TenantNamespaces is Namespaces for t as copies, the shape of
// tenantapi.NamespaceSource: the tenant's namespaces for the policy hooks
// and loops without a LIST by label.
func (x *NamespaceIndex) TenantNamespaces(ctx context.Context, t translate.Tenant) ([]corev1.Namespace, bool) {
	nss, _, ok := x.Namespaces(ctx, t.Name())
	if !ok {
		return nil, false
	}
	out := make([]corev1.Namespace, len(nss))
	for i, ns := range nss {
		out[i] = *ns
	}
	return out, true
}

// NoteWrite records the resourceVersion of a write of tenant's namespaces
// the upstream has answered, so that later answers include it. An
// etcd-backed API server's versions are numbers; anything else cannot be
// compared and is ignored. Once the watch has passed it, the note goes
// (setVersionLocked).
func (x *NamespaceIndex) NoteWrite(tenant, resourceVersion string) {
	v, err := strconv.ParseUint(resourceVersion, 10, 64)
	if err != nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if v > x.rv && v > x.written[tenant] {
		x.written[tenant] = v
	}
}

// waitWritten waits until the index is synced and has reached tenant's
// last noted write, for at most writeWait.
func (x *NamespaceIndex) waitWritten(ctx context.Context, tenant string) bool {
	timer := time.NewTimer(writeWait)
	defer timer.Stop()
	for {
		x.mu.Lock()
		synced, ready := x.synced, x.synced && x.rv >= x.written[tenant]
		changed := x.changed
		x.mu.Unlock()
		if ready {
			return true
		}
		if !synced {
			return false // not listed yet, or its watch failed: ask the upstream at once
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// tenantLabel is the tenant a namespace is labeled for.
func tenantLabel(ns *corev1.Namespace) string { return ns.Labels[translate.TenantLabel] }
