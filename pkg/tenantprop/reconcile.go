package tenantprop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The propagator identity: a ServiceAccount that need not exist, which the
// proxy and the server impersonate to write copies. `kubectl zoo install`
// grants it Secrets and ConfigMaps (and events) and confines it with
// admissionrules.PropagatorPolicy to copies in tenant namespaces.
const (
	PropagatorNamespace      = "zoo-system"
	PropagatorServiceAccount = "zoo-propagator"
	PropagatorUser           = "system:serviceaccount:" + PropagatorNamespace + ":" + PropagatorServiceAccount
)

// maxEvents bounds the events one reconcile records: a tenant that marks
// thousands of objects gets a few events, not thousands.
const maxEvents = 8

// FieldManager is the field manager of the copies.
const FieldManager = "kubectl-zoo-propagator"

// Propagator reconciles tenants' copies. It is safe for concurrent use;
// callers serialize the reconciles of one tenant (Lock).
type Propagator struct {
	dyn dynamic.Interface
	kub kubernetes.Interface
	// Namespaces, when set, lists a tenant's namespaces from an index
	// instead of a LIST by label (as tenantctl.Client.Namespaces; ok false
	// falls back to the LIST).
	Namespaces func(ctx context.Context, t translate.Tenant) (nss []corev1.Namespace, ok bool)
}

// New returns a Propagator acting upstream as PropagatorUser through cfg,
// whose own credentials must be allowed to impersonate it.
func New(cfg *rest.Config) (*Propagator, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: PropagatorUser,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + PropagatorNamespace, "system:authenticated"}}
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 200, 400 // a reconcile lists 4 times per namespace of the tenant
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("propagator client: %w", err)
	}
	kub, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("propagator client: %w", err)
	}
	return &Propagator{dyn: dyn, kub: kub}, nil
}

func gvr(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: resource}
}

// IsMarked reads one object upstream and reports whether it is marked for
// propagation (false when it does not exist).
func (p *Propagator) IsMarked(ctx context.Context, resource, namespace, name string) (bool, error) {
	u, err := p.dyn.Resource(gvr(resource)).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s %s/%s: %w", resource, namespace, name, err)
	}
	return u.GetLabels()[MarkerLabel] != "", nil
}

// tenantNamespaces lists the namespaces labeled for t, from p.Namespaces
// when it can answer.
func (p *Propagator) tenantNamespaces(ctx context.Context, t translate.Tenant) ([]corev1.Namespace, error) {
	if p.Namespaces != nil {
		if nss, ok := p.Namespaces(ctx, t); ok {
			return nss, nil
		}
	}
	list, err := p.kub.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: translate.TenantLabel + "=" + t.Name()})
	if err != nil {
		return nil, fmt.Errorf("list the namespaces of tenant %s: %w", t, err)
	}
	return list.Items, nil
}

// listLimit bounds the namespaces a reconcile lists at once.
const listLimit = 8

// Result counts what a reconcile wrote.
type Result struct {
	Created, Updated, Deleted, Skipped int
}

// Reconcile makes the copies of tenant t agree with its marked objects and
// its namespaces: its namespaces (from Namespaces, else a LIST), 4 lists
// per namespace (listLimit namespaces at once), then the writes.
func (p *Propagator) Reconcile(ctx context.Context, t translate.Tenant) (Result, error) {
	items, err := p.tenantNamespaces(ctx, t)
	if err != nil {
		return Result{}, err
	}
	var namespaces []Namespace
	for _, ns := range items {
		if !t.Owns(ns.Name) || ns.Labels[translate.TenantLabel] != t.Name() {
			continue
		}
		namespaces = append(namespaces, Namespace{Name: ns.Name, Labels: ns.Labels, Terminating: ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil})
	}
	// Each namespace's marked objects and copies, listLimit namespaces at
	// once: one after the other, a tenant with 200 namespaces waited 800
	// round trips (and the client's rate limit) for every namespace it
	// created.
	found := make([]struct{ sources, copies []Object }, len(namespaces))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(listLimit)
	for i, ns := range namespaces {
		g.Go(func() error {
			for _, res := range Kinds {
				marked, err := p.list(gctx, res, ns.Name, MarkerLabel)
				if err != nil {
					return err
				}
				for _, o := range marked {
					if _, isCopy := o.GetLabels()[translate.PropagatedFromLabel]; !isCopy {
						found[i].sources = append(found[i].sources, o)
					}
				}
				cs, err := p.list(gctx, res, ns.Name, translate.PropagatedFromLabel)
				if err != nil {
					return err
				}
				for _, c := range cs {
					if c.GetLabels()[translate.PropagatedFromLabel] != translate.PropagatedFromPolicy {
						found[i].copies = append(found[i].copies, c)
					}
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Result{}, err
	}
	var sources, copies []Object
	for _, f := range found {
		sources, copies = append(sources, f.sources...), append(copies, f.copies...)
	}
	return p.apply(ctx, t, Compute(t, namespaces, sources, copies))
}

func (p *Propagator) list(ctx context.Context, resource, ns, selector string) ([]Object, error) {
	list, err := p.dyn.Resource(gvr(resource)).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", resource, ns, err)
	}
	out := make([]Object, len(list.Items))
	for i := range list.Items {
		out[i] = Object{Resource: resource, Unstructured: &list.Items[i]}
	}
	return out, nil
}

// apply carries a plan out. An object in a copy's place that is no copy is
// left alone (the create fails with AlreadyExists and the source gets an
// event); a copy changed or deleted meanwhile is left to the next
// reconcile (preconditions on UID and resourceVersion).
func (p *Propagator) apply(ctx context.Context, t translate.Tenant, plan Plan) (Result, error) {
	var res Result
	var errs []error
	budget := maxEvents
	event := func(resource, ns, name, msg string) {
		if budget > 0 {
			budget--
			p.eventFor(ctx, resource, ns, name, msg)
		}
	}
	for _, s := range plan.Skips {
		res.Skipped++
		event(s.Source.Resource, s.Source.GetNamespace(), s.Source.GetName(), s.Reason)
	}
	for _, c := range plan.Create {
		_, err := p.dyn.Resource(gvr(c.Resource)).Namespace(c.GetNamespace()).Create(ctx, c.Unstructured, metav1.CreateOptions{FieldManager: FieldManager})
		switch {
		case apierrors.IsAlreadyExists(err):
			res.Skipped++
			from := c.GetLabels()[translate.PropagatedFromLabel]
			event(c.Resource, t.Prefix()+from, c.GetName(), fmt.Sprintf("not copied into namespace %s: an object of that name is there, and propagation never overwrites one", tenantNS(t, c.GetNamespace())))
		case err != nil:
			errs = append(errs, fmt.Errorf("create %s %s/%s: %w", c.Resource, c.GetNamespace(), c.GetName(), err))
		default:
			res.Created++
		}
	}
	for _, c := range plan.Update {
		r := p.dyn.Resource(gvr(c.Resource)).Namespace(c.GetNamespace())
		_, err := r.Update(ctx, c.Unstructured, metav1.UpdateOptions{FieldManager: FieldManager})
		if apierrors.IsInvalid(err) { // an immutable copy: replace it
			uid, rv := c.GetUID(), c.GetResourceVersion()
			err = r.Delete(ctx, c.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
			if err == nil {
				c.SetResourceVersion("")
				c.SetUID("")
				_, err = r.Create(ctx, c.Unstructured, metav1.CreateOptions{FieldManager: FieldManager})
			}
		}
		switch {
		case apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err):
		case err != nil:
			errs = append(errs, fmt.Errorf("update %s %s/%s: %w", c.Resource, c.GetNamespace(), c.GetName(), err))
		default:
			res.Updated++
		}
	}
	for _, c := range plan.Delete {
		uid, rv := c.GetUID(), c.GetResourceVersion()
		err := p.dyn.Resource(gvr(c.Resource)).Namespace(c.GetNamespace()).Delete(ctx, c.GetName(),
			metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
		switch {
		case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		case err != nil:
			errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", c.Resource, c.GetNamespace(), c.GetName(), err))
		default:
			res.Deleted++
		}
	}
	return res, errors.Join(errs...)
}

// eventFor tells the tenant, on its marked object, why it is not
// propagated (or not everywhere). Events are best effort.
func (p *Propagator) eventFor(ctx context.Context, resource, ns, name, msg string) {
	kind := "ConfigMap"
	if resource == "secrets" {
		kind = "Secret"
	}
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: kind, Namespace: ns, Name: name},
		Reason:         "NotPropagated", Message: msg, Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: "kubectl-zoo-propagator"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := p.kub.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		klog.V(2).InfoS("propagation event not recorded", "namespace", ns, "name", name, "err", err)
	}
}
