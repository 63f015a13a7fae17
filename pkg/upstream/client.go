package upstream

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Client talks to the upstream cluster as its administrator.
type Client struct {
	// Config is the administrator's REST config; impersonating clients for
	// the admission readiness check are derived from it.
	Config *rest.Config
	// Kube is the typed clientset.
	Kube kubernetes.Interface
	// Dynamic applies and lists objects of any kind (Tenant records, the
	// sweep of a tenant's cluster-scoped objects).
	Dynamic dynamic.Interface
	// Namespaces, when set, lists a tenant's namespaces from an index (the
	// proxy's, localproxy.NamespaceIndex) instead of a LIST by label, which
	// makes the API server filter every namespace of the cluster; ok false
	// falls back to the LIST.
	Namespaces tenantapi.NamespaceSource
}

// NewClient returns a Client for config, with client-side rate limits high
// enough that `tenant create` is not throttled.
func NewClient(config *rest.Config) (*Client, error) {
	config = rest.CopyConfig(config)
	config.QPS, config.Burst = 100, 200
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	return &Client{Config: config, Kube: kube, Dynamic: dyn}, nil
}

// CRDGVR is the resource of CustomResourceDefinitions.
var CRDGVR, _ = translate.ResourceFor(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))

// ToUnstructured converts a typed object (with its TypeMeta set) to the form
// kubectl-zoo applies and prints: no status, no creationTimestamp.
func ToUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if cr, ok := obj.(*rbacv1.ClusterRole); ok && cr.AggregationRule != nil {
		// The aggregation controller owns the rules: applying them, even as
		// null, would take them from it and empty the role until it refills.
		unstructured.RemoveNestedField(u.Object, "rules")
	}
	if u.GetKind() == "" {
		return nil, fmt.Errorf("convert %T: the object has no kind", obj)
	}
	return u, nil
}

// GVROf returns the resource of an object kubectl-zoo applies: a Tenant,
// or a built-in kind by the kinds table's mapping.
func GVROf(u *unstructured.Unstructured) (schema.GroupVersionResource, error) {
	gvk := u.GroupVersionKind()
	if gvk.GroupKind() == (schema.GroupKind{Group: tenantapi.TenantGVR.Group, Kind: tenantapi.TenantKind}) {
		return gvk.GroupVersion().WithResource(tenantapi.TenantResource), nil
	}
	gvr, ok := translate.ResourceFor(gvk)
	if !ok {
		return schema.GroupVersionResource{}, fmt.Errorf("no resource known for kind %s", gvk)
	}
	return gvr, nil
}

// Apply server-side applies obj with FieldManager, taking ownership of every
// field it sets (Force), as `kubectl apply --server-side --force-conflicts`.
func (c *Client) Apply(ctx context.Context, obj runtime.Object, dryRun bool) (*unstructured.Unstructured, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	gvr, err := GVROf(u)
	if err != nil {
		return nil, err
	}
	opts := metav1.ApplyOptions{FieldManager: tenantapi.FieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	out, err := c.Dynamic.Resource(gvr).Namespace(u.GetNamespace()).Apply(ctx, u.GetName(), u, opts)
	if err != nil {
		return nil, fmt.Errorf("apply %s %s: %w", u.GetKind(), QualifiedName(u), err)
	}
	return out, nil
}

// CheckInstalled fails with tenantapi.ErrNotInstalled, or a one-line permission error,
// unless the Tenant CRD is there.
func (c *Client) CheckInstalled(ctx context.Context) error {
	_, err := c.Dynamic.Resource(CRDGVR).Get(ctx, tenantapi.TenantCRDName, metav1.GetOptions{})
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return tenantapi.ErrNotInstalled
	case apierrors.IsForbidden(err):
		return fmt.Errorf("no permission to manage tenants: %w", err)
	}
	return fmt.Errorf("check the kubectl-zoo installation: %w", err)
}

// QualifiedName is namespace/name, or name for a cluster-scoped object.
func QualifiedName(u *unstructured.Unstructured) string {
	if u.GetNamespace() != "" {
		return u.GetNamespace() + "/" + u.GetName()
	}
	return u.GetName()
}

// ApplyParallel applies objs (Apply) all at once, and returns the first
// error.
func (c *Client) ApplyParallel(ctx context.Context, objs []runtime.Object) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, obj := range objs {
		g.Go(func() error {
			_, err := c.Apply(ctx, obj, false)
			return err
		})
	}
	return g.Wait()
}
