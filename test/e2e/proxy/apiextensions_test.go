package proxy_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestAPIExtensionsClientset: the apiextensions clientset, set to send
// protobuf as controllers do, creates, reads, lists and deletes a tenant
// CRD through the proxy.
func TestAPIExtensionsClientset(t *testing.T) {
	acme := serve(t, "acme")
	cfg, err := clientcmd.BuildConfigFromFlags("", acme.Kubeconfig)
	require.NoError(t, err)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf, application/json"
	cs, err := apiextensionsclient.NewForConfig(cfg)
	require.NoError(t, err)
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	ctx := t.Context()

	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.pb.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "pb.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	created, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "widgets.pb.example.com", "--wait=false") })
	assert.Equal(t, "widgets.pb.example.com", created.Name)
	assert.Equal(t, "pb.example.com", created.Spec.Group)
	assert.Equal(t, "acme-pb.example.com", admin(t, "get", "crd", "widgets.acme-pb.example.com", "-o", "jsonpath={.spec.group}"))

	got, err := crds.Get(ctx, "widgets.pb.example.com", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "pb.example.com", got.Spec.Group)
	require.Eventually(t, func() bool {
		cur, err := crds.Get(ctx, "widgets.pb.example.com", metav1.GetOptions{})
		if err != nil {
			return false
		}
		cur.Labels = map[string]string{"touched": "yes"}
		_, err = crds.Update(ctx, cur, metav1.UpdateOptions{})
		return err == nil
	}, 30*time.Second, 500*time.Millisecond, "update in protobuf")
	list, err := crds.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, c := range list.Items {
		names = append(names, c.Name)
	}
	assert.Contains(t, names, "widgets.pb.example.com")
	policy := metav1.DeletePropagationBackground
	require.NoError(t, crds.Delete(ctx, "widgets.pb.example.com", metav1.DeleteOptions{PropagationPolicy: &policy}))
}

func ptr[T any](v T) *T { return &v }

// TestCRDDiscoveryWhileRegistering: as the conformance fixtures do, a client
// creates a CRD and polls its group version's discovery until the resource
// appears, then deletes it and polls until the group version is gone. While
// it is not served the upstream answers "404 page not found" in text; the
// proxy must answer a 404 NotFound as the upstream does for its own admin
// (not a 400 about a malformed body), so that the client keeps polling.
func TestCRDDiscoveryWhileRegistering(t *testing.T) {
	acme := serve(t, "acme")
	ctx := t.Context()
	direct, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	proxied, err := clientcmd.BuildConfigFromFlags("", acme.Kubeconfig)
	require.NoError(t, err)
	for name, cfg := range map[string]*rest.Config{"direct": direct, "through serve": proxied} {
		cs, err := apiextensionsclient.NewForConfig(cfg)
		require.NoError(t, err)
		_, err = cs.Discovery().ServerResourcesForGroupVersion("nosuch.disco.example.com/v1")
		assert.True(t, apierrors.IsNotFound(err), "%s: a group version nobody serves is NotFound, got %v", name, err)
		_, err = cs.Discovery().RESTClient().Get().AbsPath("/openapi/v3/apis/nosuch.disco.example.com/v1").DoRaw(ctx)
		assert.True(t, apierrors.IsNotFound(err), "%s: its OpenAPI document is NotFound, got %v", name, err)
	}
	res := acme.run(t, "", "get", "--raw", "/apis/nosuch.disco.example.com/v1")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "NotFound")
	assert.NotContains(t, res.Stderr, "malformed")

	cfg := rest.CopyConfig(proxied)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := apiextensionsclient.NewForConfig(cfg)
	require.NoError(t, err)
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.disco.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "disco.example.com",
			Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	_, err = crds.Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	served := func() (bool, error) {
		list, err := cs.Discovery().ServerResourcesForGroupVersion("disco.example.com/v1beta1")
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		for _, r := range list.APIResources {
			if r.Name == "gadgets" {
				return true, nil
			}
		}
		return false, nil
	}
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return served()
	}), "the CRD's resource appears in discovery, every poll before a NotFound")

	require.NoError(t, crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}))
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		ok, err := served()
		return !ok, err
	}), "the CRD's resource leaves discovery, every poll after a NotFound")
}
