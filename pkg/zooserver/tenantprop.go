package zooserver

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantprop"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// tenantPropResync is how often every followed object is looked at again: it
// repairs what a watch cannot tell (a marking RoleBinding an administrator
// deleted, a copy a failed write left behind).
const tenantPropResync = 10 * time.Minute

// tenantPropLoop is the reconcile loop of the server deployment for what the
// request path cannot do alone: writes made directly upstream (a tenant
// identity or ServiceAccount creating a namespace, or marking an object,
// without the server). It follows, as metadata only, the tenants'
// namespaces and the Secrets and ConfigMaps that are marked or are copies,
// and reconciles a tenant — its namespace limit and its copies — when one
// of them changes. Every replica runs it; the writes are idempotent and
// guarded by preconditions, so two replicas never fight.
type tenantPropLoop struct {
	tc    *policyctl.Client
	prop  *tenantprop.Propagator
	queue workqueue.TypedRateLimitingInterface[string]
	// followed are the informers of marked objects and copies, indexed by
	// tenant: a namespace event reconciles a tenant's copies only when it
	// has some of either.
	followed  []cache.SharedIndexInformer
	informers []cache.SharedIndexInformer
}

const byTenant = "tenant"

func newTenantPropLoop(cfg *rest.Config) (*tenantPropLoop, error) {
	up, err := upstream.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	prop, err := tenantprop.New(cfg)
	if err != nil {
		return nil, err
	}
	own, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("metadata client: %w", err)
	}
	asProp := rest.CopyConfig(cfg)
	asProp.Impersonate = rest.ImpersonationConfig{UserName: tenantprop.PropagatorUser,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + tenantprop.PropagatorNamespace, "system:authenticated"}}
	propMeta, err := metadata.NewForConfig(asProp)
	if err != nil {
		return nil, fmt.Errorf("metadata client: %w", err)
	}
	l := &tenantPropLoop{tc: policyctl.New(up), prop: prop, queue: workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](), workqueue.TypedRateLimitingQueueConfig[string]{Name: "zoo-tenant-policies"})}
	selector := func(s string) metadatainformer.TweakListOptionsFunc {
		return func(o *metav1.ListOptions) { o.LabelSelector = s }
	}
	indexers := cache.Indexers{byTenant: func(obj any) ([]string, error) {
		if t := tenantOf(obj); t != "" {
			return []string{t}, nil
		}
		return nil, nil
	}}
	ns := metadatainformer.NewFilteredMetadataInformer(own, translate.KindResource("", "Namespace").WithVersion("v1"), "",
		tenantPropResync, cache.Indexers{}, selector(translate.TenantLabel)).Informer()
	_ = ns.SetTransform(stripMetadata)
	_, _ = ns.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    l.enqueue,
		UpdateFunc: func(_, obj any) { l.enqueue(obj) },
		DeleteFunc: l.enqueue,
	})
	l.informers = append(l.informers, ns)
	for _, res := range tenantprop.Kinds {
		for _, sel := range []string{tenantprop.MarkerLabel, translate.PropagatedFromLabel} {
			inf := metadatainformer.NewFilteredMetadataInformer(propMeta, schema.GroupVersionResource{Version: "v1", Resource: res}, "",
				tenantPropResync, indexers, selector(sel)).Informer()
			_ = inf.SetTransform(stripMetadata)
			_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc:    l.enqueue,
				UpdateFunc: func(_, obj any) { l.enqueue(obj) },
				DeleteFunc: l.enqueue,
			})
			l.followed = append(l.followed, inf)
			l.informers = append(l.informers, inf)
		}
	}
	return l, nil
}

// stripMetadata keeps what the loop reads of an object: its name,
// namespace and labels.
func stripMetadata(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.ManagedFields, m.Annotations = nil, nil
	}
	return obj, nil
}

// tenantOf is the tenant whose namespace obj is or is in ("" for none).
func tenantOf(obj any) string {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return ""
	}
	ns := m.Namespace
	if ns == "" {
		ns = m.Name
	}
	tenant, _, ok := translate.SplitUpstreamName(ns)
	if !ok {
		return ""
	}
	return tenant.Name()
}

func (l *tenantPropLoop) enqueue(obj any) {
	if t := tenantOf(obj); t != "" {
		l.queue.Add(t)
	}
}

// run follows and reconciles until ctx ends, with workers goroutines.
func (l *tenantPropLoop) run(ctx context.Context, workers int) {
	defer l.queue.ShutDown()
	for _, inf := range l.informers {
		go inf.RunWithContext(ctx)
	}
	for range workers {
		go func() {
			for l.next(ctx) {
			}
		}()
	}
	<-ctx.Done()
}

func (l *tenantPropLoop) next(ctx context.Context) bool {
	tenant, quit := l.queue.Get()
	if quit {
		return false
	}
	defer l.queue.Done(tenant)
	if err := l.reconcile(ctx, tenant); err != nil {
		klog.ErrorS(err, "reconciling the tenant's policies", "tenant", tenant)
		l.queue.AddRateLimited(tenant)
		return true
	}
	l.queue.Forget(tenant)
	return true
}

// reconcile brings tenant's namespace limit and copies up to date, under
// the process-wide lock of the tenant that the request path takes too.
func (l *tenantPropLoop) reconcile(ctx context.Context, tenant string) error {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return nil // no tenant's name: nothing to do
	}
	unlock := localproxy.LockTenant(tenant)
	defer unlock()
	if err := l.tc.ReconcileNamespaceLimit(ctx, tenant); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // no record: not a tenant (or being deleted)
		}
		return err
	}
	if !l.hasCopiesOrSources(tenant) {
		return nil
	}
	_, err = l.prop.Reconcile(ctx, t)
	return err
}

func (l *tenantPropLoop) hasCopiesOrSources(tenant string) bool {
	for _, inf := range l.followed {
		if objs, err := inf.GetIndexer().ByIndex(byTenant, tenant); err == nil && len(objs) > 0 {
			return true
		}
	}
	return false
}
