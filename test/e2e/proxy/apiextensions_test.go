package proxy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
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
