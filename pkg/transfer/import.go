package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ImportFieldManager is the field manager of what `tenant import` writes.
const ImportFieldManager = "kubectl-zoo-import"

// establishTimeout bounds the wait for imported CRDs to serve their kinds,
// and for imported namespaces to be writable.
const establishTimeout = time.Minute

// ImportOptions configures Import.
type ImportOptions struct {
	// Applied, if set, is told of every object applied: created, or
	// configured (it existed, and was patched).
	Applied func(obj *unstructured.Unstructured, created bool)
	// Refused, if set, is told of every object the view refused, with the
	// API's error.
	Refused func(obj *unstructured.Unstructured, err error)
}

// ImportResult counts what Import did.
type ImportResult struct {
	// Applied counts the objects created or patched.
	Applied int
	// Refused counts the objects the view refused.
	Refused int
}

// Import creates objs (or merge-patches those that exist) through view, a
// client config of the tenant's own view, in apply order: CRDs first,
// waiting until they are established before any other object, then
// namespaces, waiting until they are writable, then RBAC and the rest. What
// the view refuses (the tenant's policy, its confinement) is reported with
// the API's error and the next object is applied. A wait that ends without
// success is logged, and what depends on it is then refused by the view
// itself (a kind not served, a namespace not writable).
func Import(ctx context.Context, view *rest.Config, objs []*unstructured.Unstructured, opts ImportOptions) (*ImportResult, error) {
	dyn, err := dynamic.NewForConfig(view)
	if err != nil {
		return nil, fmt.Errorf("tenant view client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(view)
	if err != nil {
		return nil, fmt.Errorf("tenant view discovery: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	SortObjects(objs)
	res := &ImportResult{}
	var crds, namespaces []string
	for _, obj := range objs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		gk := obj.GroupVersionKind().GroupKind()
		if gk != gkCRD && crds != nil {
			if err := waitEstablished(ctx, dyn, crds); err != nil {
				klog.ErrorS(err, "importing the custom resources anyway")
			}
			crds = nil
			mapper.Reset()
		}
		if gk != gkCRD && gk != gkNamespace && namespaces != nil {
			if err := waitNamespacesWritable(ctx, view, namespaces); err != nil {
				klog.ErrorS(err, "importing into the namespaces anyway")
			}
			namespaces = nil
		}
		created, err := applyOne(ctx, dyn, mapper, obj)
		if err != nil {
			res.Refused++
			if opts.Refused != nil {
				opts.Refused(obj, err)
			}
			continue
		}
		res.Applied++
		if opts.Applied != nil {
			opts.Applied(obj, created)
		}
		switch gk {
		case gkCRD:
			crds = append(crds, obj.GetName())
		case gkNamespace:
			namespaces = append(namespaces, obj.GetName())
		}
	}
	return res, nil
}

// applyOne creates obj through the view, in its namespace ("default" for a
// namespaced object that names none, as kubectl does); an object that exists
// is merge-patched with it (what the file sets wins, what it leaves out is
// kept). Server-side apply is not used: the view refuses it for
// ClusterRoleBindings, whose subjects are stored apart upstream.
func applyOne(ctx context.Context, dyn dynamic.Interface, mapper *restmapper.DeferredDiscoveryRESTMapper, obj *unstructured.Unstructured) (created bool, err error) {
	gvk := obj.GroupVersionKind()
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, err
	}
	var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			obj.SetNamespace(metav1.NamespaceDefault)
		}
		ri = dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}
	_, err = ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: ImportFieldManager})
	if !apierrors.IsAlreadyExists(err) {
		return err == nil, err
	}
	patch, err := json.Marshal(obj.Object)
	if err != nil {
		return false, err
	}
	_, err = ri.Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ImportFieldManager})
	return false, err
}

// waitNamespacesWritable waits until the view's user may create in every
// named namespace: the RBAC that makes a new namespace the tenant's is
// followed by the API server's authorizer through an informer, a moment later.
func waitNamespacesWritable(ctx context.Context, view *rest.Config, names []string) error {
	kube, err := kubernetes.NewForConfig(view)
	if err != nil {
		return err
	}
	for _, ns := range names {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: translate.ResourceOf("", "ConfigMap"), Namespace: ns}}}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, establishTimeout, true, func(ctx context.Context) (bool, error) {
			got, err := kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			return err == nil && got.Status.Allowed, nil
		})
		if err != nil {
			return fmt.Errorf("namespace %s is not writable after %s: %w", ns, establishTimeout, err)
		}
	}
	return nil
}

// waitEstablished waits until every named CRD is Established in the view.
func waitEstablished(ctx context.Context, dyn dynamic.Interface, names []string) error {
	for _, name := range names {
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, establishTimeout, true, func(ctx context.Context) (bool, error) {
			crd, err := dyn.Resource(gvrCRD).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil //nolint:nilerr // not yet visible: poll again
			}
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s is not established after %s: %w", name, establishTimeout, err)
		}
	}
	return nil
}
