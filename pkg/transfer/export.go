package transfer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// ExportOptions configures Export.
type ExportOptions struct {
	// IncludeSecrets exports Secrets too.
	IncludeSecrets bool
	// Progress, if set, is told before each resource is read: how many
	// resources are done of how many, and which.
	Progress func(done, total int, resource string)
}

// ExportResult is what Export read.
type ExportResult struct {
	// Objects are the exported objects, cleaned, in apply order.
	Objects []*unstructured.Unstructured
	// Omitted counts the objects left out, by why.
	Omitted map[string]int
}

var gvrCRD = upstream.CRDGVR

// Export reads every object tenant owns through view, a client config of
// the tenant's own view (its names unprefixed, as `kubectl zoo serve` shows
// them, as one of its admins): the kinds ExportKinds exports and the
// resources of the tenant's CRDs, found by discovery; then leaves out and
// cleans what the cluster populates (ExportSet.Omit, CleanForExport).
// upstream, the caller's own config, only tells which objects of the shared
// kinds are the tenant's (sharedOwned).
func Export(ctx context.Context, view, upstream *rest.Config, tenant string, opts ExportOptions) (*ExportResult, error) {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(view)
	if err != nil {
		return nil, fmt.Errorf("tenant view client: %w", err)
	}
	up, err := dynamic.NewForConfig(upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(view)
	if err != nil {
		return nil, fmt.Errorf("tenant view discovery: %w", err)
	}
	resources, err := exportResources(ctx, dyn, disc)
	if err != nil {
		return nil, err
	}
	var all []*unstructured.Unstructured
	for i, r := range resources {
		gvr := r.gvr
		if opts.Progress != nil {
			opts.Progress(i, len(resources), gvr.GroupResource().String())
		}
		var items []*unstructured.Unstructured
		if r.shared {
			items, err = sharedOwned(ctx, up, dyn.Resource(gvr), gvr, t)
		} else {
			items, err = listAll(ctx, dyn.Resource(gvr), "")
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
		}
		all = append(all, items...)
	}
	if opts.Progress != nil {
		opts.Progress(len(resources), len(resources), "")
	}
	return PrepareExport(all, opts.IncludeSecrets), nil
}

// PrepareExport leaves out of all (the tenant's objects as its view shows
// them) what ExportSet.Omit omits, cleans the rest (CleanForExport, in
// place) and puts them in apply order.
func PrepareExport(all []*unstructured.Unstructured, includeSecrets bool) *ExportResult {
	set := NewExportSet(all, includeSecrets)
	res := &ExportResult{Omitted: map[string]int{}}
	for _, obj := range all {
		if why := set.Omit(obj); why != "" {
			klog.V(2).InfoS("not exported", "kind", obj.GetKind(), "namespace", obj.GetNamespace(), "name", obj.GetName(), "why", why)
			res.Omitted[why]++
			continue
		}
		CleanForExport(obj)
		res.Objects = append(res.Objects, obj)
	}
	SortObjects(res.Objects)
	return res
}

// exportResource is a resource to export.
type exportResource struct {
	gvr        schema.GroupVersionResource
	gk         schema.GroupKind
	namespaced bool
	shared     bool
}

// exportResources finds, by discovery of the view, the preferred version of
// every exported resource (exportable) that can be listed, in apply order.
func exportResources(ctx context.Context, dyn dynamic.Interface, disc discovery.DiscoveryInterface) ([]exportResource, error) {
	crds, err := listAll(ctx, dyn.Resource(gvrCRD), "")
	if err != nil {
		return nil, fmt.Errorf("list the tenant's CRDs: %w", err)
	}
	custom := map[string]bool{}
	for _, crd := range crds {
		g, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		custom[g] = true
	}
	lists, err := disc.ServerPreferredResources()
	if err != nil {
		return nil, fmt.Errorf("discovery of the tenant's resources: %w", err)
	}
	var out []exportResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
		for _, r := range list.APIResources {
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			export, shared := exportable(gr, custom)
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !export {
				continue
			}
			out = append(out, exportResource{gvr: gv.WithResource(r.Name), gk: schema.GroupKind{Group: gv.Group, Kind: r.Kind},
				namespaced: r.Namespaced, shared: shared})
		}
	}
	sortByApplyOrder(out, func(r exportResource) (schema.GroupKind, bool) { return r.gk, r.namespaced })
	return out, nil
}

// listAll lists every object of a resource (in every namespace the view
// shows) that selector selects, a page at a time.
func listAll(ctx context.Context, ri dynamic.ResourceInterface, selector string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	opts := metav1.ListOptions{Limit: upstream.DefaultChunkSize, LabelSelector: selector}
	for {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}
