package zooserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Bounds of the policy reconcile loop.
const (
	// policyWorkers reconcile distinct tenants at once; one tenant is never
	// reconciled twice at once (the queue), nor by two replicas (the
	// tenant's policy lock).
	policyWorkers = 2
	// policyUsageDelay batches the rebalances a tenant's usage changes ask
	// for (each admitted pod changes a ResourceQuota's status).
	policyUsageDelay = 5 * time.Second
	// policyEventDelay batches the events of a tenant's namespaces and
	// policy objects: a proxy that makes a namespace makes its three
	// objects a moment later, one by one, and a reconcile between them
	// would find two missing.
	policyEventDelay = time.Second
	// policyTimeout bounds one reconcile.
	policyTimeout = 2 * time.Minute
	// policyStuckRetries is how many reconciles in a row may leave the
	// informers showing drift before the loop logs an error.
	policyStuckRetries = 6
)

// policyReconciler is what the loop calls per tenant
// (policyctl.Client.ReconcilePolicyObjectsOnDrift).
type policyReconciler interface {
	ReconcilePolicyObjectsOnDrift(ctx context.Context, tenant string, cache *policyctl.PolicyCache) error
}

// policyLoop keeps the objects of every tenant's policy in every tenant
// namespace (pkg/tenantctl, propagate*.go): informers on the Tenant records
// (a change of spec.policy), the tenant namespaces (one made or deleted
// directly upstream) and the policy objects themselves (drift: one
// deleted or changed; a quota's usage, which moves its tenant's split)
// feed a rate-limited queue of tenant names, which policyWorkers workers
// drain. A failed reconcile is retried with backoff. The same informers
// are the cache a reconcile first runs dry on: only a tenant whose
// objects drifted costs upstream requests and its lock.
type policyLoop struct {
	reconciler policyReconciler
	queue      workqueue.TypedRateLimitingInterface[string]
	factories  []informers.SharedInformerFactory
	cache      *policyctl.PolicyCache
}

func newPolicyLoop(client kubernetes.Interface, reconciler policyReconciler, tenants cache.SharedIndexInformer) (*policyLoop, error) {
	// Retries (a failed reconcile, or one after which the informers still
	// show drift) back off from policyEventDelay, by which time the
	// informers have seen the reconcile's writes, to 5 minutes.
	limiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](policyEventDelay, 5*time.Minute),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
	l := &policyLoop{
		reconciler: reconciler,
		queue:      workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "policy"}),
	}
	// No periodic reconcile of every tenant: at 1000 tenants one costs some
	// 18 000 upstream requests (make bench-scale), and the informers below
	// already report every drift (a policy object deleted or changed, a
	// namespace made or relabeled), also what a lost watch missed, which
	// their relist delivers.
	_, _ = tenants.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { l.enqueueName(obj) },
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*unstructured.Unstructured)
			n, ok2 := newObj.(*unstructured.Unstructured)
			// A change of the spec, or a record deleted and made again
			// (seen as an update after a relist).
			if !ok1 || !ok2 || o.GetGeneration() != n.GetGeneration() || o.GetUID() != n.GetUID() {
				l.enqueueName(newObj)
			}
		},
	})
	byTenant := func(sel string) informers.SharedInformerFactory {
		f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel }))
		l.factories = append(l.factories, f)
		return f
	}
	nsFactory := byTenant(translate.TenantLabel)
	objFactory := byTenant(labels.SelectorFromSet(labels.Set{translate.PropagatedFromLabel: translate.PropagatedFromPolicy}).String())
	strip := func(obj any) (any, error) {
		if m, ok := obj.(metav1.Object); ok {
			m.SetManagedFields(nil)
		}
		return obj, nil
	}
	soon, later := l.enqueueLabel(policyEventDelay), l.enqueueLabel(policyUsageDelay)
	// An update queues the tenant labeled before and after: a namespace
	// or object an admin relabels leaves one tenant and joins another.
	handler := cache.ResourceEventHandlerFuncs{AddFunc: soon, DeleteFunc: soon, UpdateFunc: func(o, n any) { soon(o); soon(n) }}
	nsInformer := nsFactory.Core().V1().Namespaces().Informer()
	if err := nsInformer.AddIndexers(cache.Indexers{byTenantIndex: byTenantLabel}); err != nil {
		return nil, fmt.Errorf("index the tenant namespaces by tenant: %w", err)
	}
	lr, np := objFactory.Core().V1().LimitRanges(), objFactory.Networking().V1().NetworkPolicies()
	for _, inf := range []cache.SharedIndexInformer{nsInformer, lr.Informer(), np.Informer()} {
		_ = inf.SetTransform(strip)
		_, _ = inf.AddEventHandler(handler)
	}
	rqs := objFactory.Core().V1().ResourceQuotas()
	rq := rqs.Informer()
	_ = rq.SetTransform(strip)
	_, _ = rq.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: soon, DeleteFunc: soon, UpdateFunc: func(oldObj, newObj any) {
		o, ok1 := oldObj.(*corev1.ResourceQuota)
		n, ok2 := newObj.(*corev1.ResourceQuota)
		if ok1 && ok2 && o.Generation == n.Generation && o.Labels[translate.TenantLabel] == n.Labels[translate.TenantLabel] {
			later(newObj) // only the usage moved
			return
		}
		soon(oldObj)
		soon(newObj)
	}})
	l.cache = &policyctl.PolicyCache{
		Tenant: func(name string) (*tenantapi.Tenant, error) {
			obj, ok, err := tenants.GetStore().GetByKey(name)
			if err != nil {
				return nil, err
			}
			u, isU := obj.(*unstructured.Unstructured)
			if !ok || !isU {
				return nil, apierrors.NewNotFound(tenantapi.TenantGVR.GroupResource(), name)
			}
			return tenantapi.TenantFromUnstructured(u)
		},
		Namespaces: func(t translate.Tenant) ([]corev1.Namespace, error) {
			objs, err := nsInformer.GetIndexer().ByIndex(byTenantIndex, t.Name())
			if err != nil {
				return nil, err
			}
			out := make([]corev1.Namespace, 0, len(objs))
			for _, obj := range objs {
				if ns, ok := obj.(*corev1.Namespace); ok {
					out = append(out, *ns)
				}
			}
			return out, nil
		},
		ResourceQuota: func(ns string) (*corev1.ResourceQuota, error) {
			return rqs.Lister().ResourceQuotas(ns).Get(platformobj.PolicyObjectName)
		},
		LimitRange: func(ns string) (*corev1.LimitRange, error) {
			return lr.Lister().LimitRanges(ns).Get(platformobj.PolicyObjectName)
		},
		NetworkPolicy: func(ns string) (*networkingv1.NetworkPolicy, error) {
			return np.Lister().NetworkPolicies(ns).Get(platformobj.PolicyObjectName)
		},
	}
	return l, nil
}

// byTenantIndex indexes the namespaces by their tenant label.
const byTenantIndex = "tenant"

func byTenantLabel(obj any) ([]string, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, nil
	}
	if t, ok := m.GetLabels()[translate.TenantLabel]; ok {
		return []string{t}, nil
	}
	return nil, nil
}

// enqueueName queues the tenant a Tenant record names.
func (l *policyLoop) enqueueName(obj any) {
	if m, ok := obj.(metav1.Object); ok {
		l.queue.Add(m.GetName())
	}
}

// enqueueLabel returns a handler that queues, after delay, the tenant an
// object's TenantLabel names.
func (l *policyLoop) enqueueLabel(delay time.Duration) func(obj any) {
	return func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		m, ok := obj.(metav1.Object)
		if !ok {
			return
		}
		tenant, ok := m.GetLabels()[translate.TenantLabel]
		if !ok || translate.ValidateTenantName(tenant) != nil {
			return
		}
		l.queue.AddAfter(tenant, delay)
	}
}

// run starts the informers and workers until ctx ends.
func (l *policyLoop) run(ctx context.Context) {
	defer l.queue.ShutDown()
	for _, f := range l.factories {
		f.Start(ctx.Done())
		f.WaitForCacheSync(ctx.Done())
	}
	for range policyWorkers {
		go func() {
			for l.work(ctx) {
			}
		}()
	}
	<-ctx.Done()
}

// work reconciles one queued tenant; false once the queue shuts down.
func (l *policyLoop) work(ctx context.Context) bool {
	tenant, shutdown := l.queue.Get()
	if shutdown {
		return false
	}
	defer l.queue.Done(tenant)
	rctx, cancel := context.WithTimeout(ctx, policyTimeout)
	defer cancel()
	err := l.reconciler.ReconcilePolicyObjectsOnDrift(rctx, tenant, l.cache)
	switch {
	case errors.Is(err, policyctl.ErrPolicyStillDrifted):
		// Usually the informers have not seen the writes yet; a tenant
		// that stays so is worth an error (policyStuckRetries: about a
		// minute of backoff).
		if n := l.queue.NumRequeues(tenant); n >= policyStuckRetries {
			klog.ErrorS(err, "the policy objects do not converge", "tenant", tenant, "retries", n)
		} else {
			klog.V(2).InfoS("retrying the policy objects later", "tenant", tenant, "reason", err)
		}
		l.queue.AddRateLimited(tenant)
		return true
	case err != nil:
		klog.ErrorS(err, "reconciling the policy objects", "tenant", tenant)
		l.queue.AddRateLimited(tenant)
		return true
	}
	l.queue.Forget(tenant)
	return true
}
