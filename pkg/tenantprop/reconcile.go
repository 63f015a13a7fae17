package tenantprop

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nsobjects"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
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
	Namespaces tenantapi.NamespaceSource
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

// listLimit bounds the namespaces a reconcile lists at once, and the
// writes it has in flight.
const listLimit = 8

// Result counts what a reconcile wrote.
type Result struct {
	Created, Updated, Deleted, Skipped int
}

// found are the objects of one namespace a reconcile reads.
type found struct{ sources, copies []Object }

// Reconcile makes the copies of tenant t agree with its marked objects and
// its namespaces: its namespaces (from Namespaces, else a LIST), 4 lists
// per namespace (listLimit namespaces at once), then the writes.
func (p *Propagator) Reconcile(ctx context.Context, t translate.Tenant) (Result, error) {
	namespaces, err := nsobjects.TenantNamespaces(ctx, p.kub, p.Namespaces, t)
	if err != nil {
		return Result{}, err
	}
	names := make([]string, len(namespaces))
	for i, ns := range namespaces {
		names[i] = ns.Name
	}
	// Listed listLimit namespaces at once: one after the other, a tenant
	// with 200 namespaces waited 800 round trips (and the client's rate
	// limit) for every namespace it created.
	each, err := nsobjects.PerNamespace(ctx, names, listLimit, p.listIn)
	if err != nil {
		return Result{}, err
	}
	var sources, copies []Object
	for _, f := range each {
		sources, copies = append(sources, f.sources...), append(copies, f.copies...)
	}
	return p.apply(ctx, t, Compute(t, namespaces, sources, copies))
}

// listIn lists the marked objects and the copies of namespace ns, 2 lists
// per kind.
func (p *Propagator) listIn(ctx context.Context, ns string) (found, error) {
	var f found
	for _, res := range Kinds {
		marked, err := p.list(ctx, res, ns, MarkerLabel)
		if err != nil {
			return f, err
		}
		for _, o := range marked {
			if _, isCopy := o.GetLabels()[translate.PropagatedFromLabel]; !isCopy {
				f.sources = append(f.sources, o)
			}
		}
		cs, err := p.list(ctx, res, ns, translate.PropagatedFromLabel)
		if err != nil {
			return f, err
		}
		for _, c := range cs {
			if c.GetLabels()[translate.PropagatedFromLabel] != translate.PropagatedFromPolicy {
				f.copies = append(f.copies, c)
			}
		}
	}
	return f, nil
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

// apply carries a plan out (copyWriter, listLimit writes at once). An
// object in a copy's place that is no copy is left alone (the create fails
// with AlreadyExists and the source gets an event); a copy changed or
// deleted meanwhile is left to the next reconcile (preconditions on UID
// and resourceVersion). The events of the skips are recorded before the
// writes, those of the refused creates after, maxEvents in all.
func (p *Propagator) apply(ctx context.Context, t translate.Tenant, plan Plan) (Result, error) {
	budget := maxEvents
	event := func(o Object, ns, msg string) {
		if budget > 0 {
			budget--
			p.eventFor(ctx, o.Resource, ns, o.GetName(), msg)
		}
	}
	for _, s := range plan.Skips {
		event(s.Source, s.Source.GetNamespace(), s.Reason)
	}
	done, err := nsobjects.Apply(ctx, plan, copyWriter{p}, listLimit)
	for _, c := range done.Taken {
		from := c.GetLabels()[translate.PropagatedFromLabel]
		event(c, t.Prefix()+from, fmt.Sprintf("not copied into namespace %s: an object of that name is there, and propagation never overwrites one", tenantNS(t, c.GetNamespace())))
	}
	return Result{Created: done.Created, Updated: done.Updated, Deleted: done.Deleted, Skipped: len(plan.Skips) + len(done.Taken)}, err
}

// eventFor tells the tenant, on its marked object, why it is not
// propagated (or not everywhere). Events are best effort.
func (p *Propagator) eventFor(ctx context.Context, resource, ns, name, msg string) {
	row, _ := translate.LookupKind(schema.GroupResource{Resource: resource}) // one of Kinds: a row of the table
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: row.Kind, Namespace: ns, Name: name},
		Reason:         "NotPropagated", Message: msg, Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: "kubectl-zoo-propagator"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := p.kub.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		klog.V(2).InfoS("propagation event not recorded", "namespace", ns, "name", name, "err", err)
	}
}
