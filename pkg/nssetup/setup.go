// Package nssetup keeps every namespace of a tenant set up, whatever made
// it: a create through the proxy, a server-side apply, a PUT, a
// generateName, or a write directly upstream with the tenant identity's
// credentials. A namespace of tenant T (named with T's prefix and labeled
// for T; one that has only one of the two is nobody's and is left alone)
// needs its admins' RoleBinding (platformobj.NamespaceRBAC), its policy
// objects (Client.ReconcileNamespacePolicyObjects, tenantctl's) and the
// RoleBindings of T's ClusterRoleBindings (crbstore.Grants).
//
// The Reconciler watches the tenants' namespaces, the admins' RoleBindings
// (by name) and the RoleBindings of ClusterRoleBindings (by label) with
// informers, and reconciles a namespace when one of them changes. From its
// caches it sees what is missing without an upstream request: a namespace
// that has everything costs nothing. `kubectl zoo serve` runs one for its
// tenant, the server one for every tenant. See docs/tools.md, "Access
// reviews and namespace set-up".
package nssetup

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

const (
	// settleDelay lets the proxy that made a namespace finish its set-up
	// (the create hook) before the namespace's event is looked at, so
	// that a namespace made through a proxy costs no second write.
	settleDelay = 2 * time.Second
	// workers reconcile distinct namespaces at once.
	workers = 2
	// timeout bounds one namespace's reconcile.
	timeout = time.Minute
)

// Config is what a Reconciler needs.
type Config struct {
	// Kube is the caller's own identity (the `serve` user's, the server's
	// ServiceAccount): it watches, reads the stored ClusterRoleBindings and
	// deletes an admins' RoleBinding the tenant changed.
	Kube kubernetes.Interface
	// Client reads the records and makes the policy objects with the same
	// identity.
	Client Client
	// Upstream is the own identity's REST config; the RoleBindings are
	// written impersonating one of the tenant's admins, derived from it,
	// so that the upstream's RBAC and admission judge them as the
	// tenant's.
	Upstream *rest.Config
	// Tenant limits the reconcile to one tenant (serve); "" is every
	// tenant (the server).
	Tenant string
	// Record returns a tenant's record, nil when it has none; nil reads
	// it with Client. Before it writes, a reconcile reads the record with
	// Client again: what Record returns may be older.
	Record func(ctx context.Context, tenant string) (*tenantapi.Tenant, error)
	// RecordsSynced, when set, reports whether what Record reads from
	// (an informer) is synced: no namespace is reconciled before.
	RecordsSynced cache.InformerSynced
}

// Client is what a Reconciler asks of the tenant records and the policy
// objects; *tenantctl.Client is the one `serve` and the server give.
type Client interface {
	// TenantRecord reads tenant's record; nil (and no error) when it has
	// none.
	TenantRecord(ctx context.Context, tenant string) (*tenantapi.Tenant, error)
	// ReconcileNamespacePolicyObjects makes the policy objects of ns, a
	// namespace of tenant.
	ReconcileNamespacePolicyObjects(ctx context.Context, tenant, ns string) error
}

// Reconciler keeps the tenants' namespaces set up. Make it with New, then
// Run it.
type Reconciler struct {
	cfg       Config
	queue     workqueue.TypedRateLimitingInterface[string]
	factories []informers.SharedInformerFactory
	nss       cache.Indexer
	admins    rbacv1listers.RoleBindingLister
	records   *recordCache
	// grants holds the namespaces whose ClusterRoleBindings' RoleBindings
	// are to be written again (one was deleted or changed).
	mu     sync.Mutex
	grants map[string]bool
}

// New returns the Reconciler of cfg; nothing runs until Run.
func New(cfg Config) (*Reconciler, error) {
	selector := translate.TenantLabel
	if cfg.Tenant != "" {
		t, err := translate.NewTenant(cfg.Tenant)
		if err != nil {
			return nil, err
		}
		selector = translate.TenantLabel + "=" + t.Name()
	}
	readNow := cfg.Client.TenantRecord
	if cfg.Record == nil {
		cfg.Record = readNow
	}
	limiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
	r := &Reconciler{cfg: cfg, grants: map[string]bool{}, records: newRecordCache(cfg.Record, readNow),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "namespace set-up"})}
	factory := func(tweak func(*metav1.ListOptions)) informers.SharedInformerFactory {
		f := informers.NewSharedInformerFactoryWithOptions(cfg.Kube, 0, informers.WithTweakListOptions(tweak))
		r.factories = append(r.factories, f)
		return f
	}
	nsInformer := factory(func(o *metav1.ListOptions) { o.LabelSelector = selector }).Core().V1().Namespaces().Informer()
	// The admins' RoleBindings by name, not by label: a tenant that
	// strips the label of its own must not hide it.
	admins := factory(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", tenantapi.NamespaceAdminsRoleBinding).String()
	}).Rbac().V1().RoleBindings()
	granted := factory(func(o *metav1.ListOptions) { o.LabelSelector = crbstore.MaterializedFromLabel }).Rbac().V1().RoleBindings().Informer()
	for _, inf := range []cache.SharedIndexInformer{nsInformer, admins.Informer(), granted} {
		_ = inf.SetTransform(stripManagedFields)
	}
	_, _ = nsInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.enqueue(obj, settleDelay) },
		UpdateFunc: func(_, obj any) { r.enqueue(obj, settleDelay) },
	})
	_, _ = admins.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { r.enqueueNamespaceOf(obj, false) },
		DeleteFunc: func(obj any) { r.enqueueNamespaceOf(obj, false) },
	})
	_, _ = granted.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { r.enqueueNamespaceOf(obj, true) },
		DeleteFunc: func(obj any) { r.enqueueNamespaceOf(obj, true) },
	})
	r.nss, r.admins = nsInformer.GetIndexer(), admins.Lister()
	return r, nil
}

// Run starts the informers and the workers, and returns when ctx ends.
func (r *Reconciler) Run(ctx context.Context) {
	defer r.queue.ShutDown()
	for _, f := range r.factories {
		f.Start(ctx.Done())
	}
	for _, f := range r.factories {
		f.WaitForCacheSync(ctx.Done())
	}
	if r.cfg.RecordsSynced != nil {
		cache.WaitForCacheSync(ctx.Done(), r.cfg.RecordsSynced)
	}
	klog.V(1).InfoS("keeping the tenants' namespaces set up", "tenant", r.cfg.Tenant)
	for range workers {
		go func() {
			for r.work(ctx) {
			}
		}()
	}
	<-ctx.Done()
}

// work reconciles one queued namespace; false once the queue shuts down.
func (r *Reconciler) work(ctx context.Context) bool {
	ns, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	defer r.queue.Done(ns)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := r.reconcile(rctx, ns); err != nil {
		klog.ErrorS(err, "setting up a tenant namespace", "namespace", ns, "retries", r.queue.NumRequeues(ns))
		r.queue.AddRateLimited(ns)
		return true
	}
	r.queue.Forget(ns)
	return true
}

// enqueue queues a namespace after delay.
func (r *Reconciler) enqueue(obj any, delay time.Duration) {
	if m, ok := obj.(metav1.Object); ok {
		r.queue.AddAfter(m.GetName(), delay)
	}
}

// enqueueNamespaceOf queues the namespace of a RoleBinding at once; with
// grants, its ClusterRoleBindings' RoleBindings are written again.
func (r *Reconciler) enqueueNamespaceOf(obj any, grants bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	rb, ok := obj.(*rbacv1.RoleBinding)
	if !ok {
		return
	}
	if grants {
		r.mu.Lock()
		r.grants[rb.Namespace] = true
		r.mu.Unlock()
	}
	r.queue.Add(rb.Namespace)
}

// takeGrants reports and clears whether ns's ClusterRoleBindings'
// RoleBindings are to be written again.
func (r *Reconciler) takeGrants(ns string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.grants[ns]
	delete(r.grants, ns)
	return g
}

// stripManagedFields keeps the informers' objects small.
func stripManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// tenantOf returns the tenant whose namespace ns is: labeled for it and
// named with its prefix (and, for a Reconciler of one tenant, that one).
func (r *Reconciler) tenantOf(ns *corev1.Namespace) (translate.Tenant, bool) {
	name, ok := ns.Labels[translate.TenantLabel]
	if !ok || (r.cfg.Tenant != "" && name != r.cfg.Tenant) {
		return translate.Tenant{}, false
	}
	t, err := translate.NewTenant(name)
	if err != nil || !t.Owns(ns.Name) {
		return translate.Tenant{}, false
	}
	return t, true
}

// errNoAdmins is a tenant without admins, whom no RoleBinding names.
var errNoAdmins = errors.New("the tenant has no admins")
