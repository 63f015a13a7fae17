package translate

import (
	"bytes"
	"net/http"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// pbEncodeBody encodes obj as a client-go clientset of its group would send
// it: protobuf, with the group/version/kind of bodyScheme.
func pbEncodeBody(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	gvks, _, err := bodyScheme.ObjectKinds(obj)
	require.NoError(t, err)
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	var buf bytes.Buffer
	require.NoError(t, protobuf.NewSerializer(bodyScheme, bodyScheme).Encode(obj, &buf))
	return buf.Bytes()
}

// TestProtobufBodiesOfEveryBuiltinGroup: the apiextensions clientset sends
// CRDs (and their DeleteOptions) in protobuf; they are decoded and
// translated like JSON, not refused as "no kind is registered".
func TestProtobufBodiesOfEveryBuiltinGroup(t *testing.T) {
	tr := newTestTranslator(t)
	crd := func() *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}},
		}
	}
	for _, tc := range []struct {
		name, method, path string
		obj                runtime.Object
		want               []string
	}{
		{"create a CRD", http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(),
			[]string{`"name":"crontabs.acme-stable.example.com"`, `"group":"acme-stable.example.com"`}},
		{"update a CRD", http.MethodPut, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", crd(),
			[]string{`"name":"crontabs.acme-stable.example.com"`}},
		{"create a v1beta1 CRD", http.MethodPost, "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions",
			&apiextensionsv1beta1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
				Spec: apiextensionsv1beta1.CustomResourceDefinitionSpec{Group: "stable.example.com"}},
			[]string{`"group":"acme-stable.example.com"`}},
		{"delete a CRD with options", http.MethodDelete, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com",
			&metav1.DeleteOptions{PropagationPolicy: ptrTo(metav1.DeletePropagationForeground)}, []string{`"propagationPolicy":"Foreground"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Body: pbEncodeBody(t, tc.obj),
				Header: http.Header{"Content-Type": {MediaProtobuf}}})
			require.NoError(t, err)
			for _, want := range tc.want {
				assert.Contains(t, string(u.Body), want)
			}
			assert.Equal(t, MediaJSON, u.Header.Get("Content-Type"))
		})
	}
	t.Run("an APIService is refused before its body is read", func(t *testing.T) {
		_, err := tr.TranslateRequest(Request{Method: http.MethodPost, Path: "/apis/apiregistration.k8s.io/v1/apiservices",
			Body: append([]byte("k8s\x00"), 0x0a, 0x02, 'x', 'y'), Header: http.Header{"Content-Type": {MediaProtobuf}}})
		require.Error(t, err)
		assert.EqualValues(t, http.StatusForbidden, ToStatus(err).Code)
	})
}

func ptrTo[T any](v T) *T { return &v }

// hasStatusField reports whether the kind's Go type in bodyScheme has a
// Status field.
func hasStatusField(k *KindRule) bool {
	gk := schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}
	for _, gv := range bodyScheme.VersionsForGroupKind(gk) {
		obj, err := bodyScheme.New(gv.WithKind(k.Kind))
		if err != nil {
			continue
		}
		v := reflect.ValueOf(obj)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		return v.Kind() == reflect.Struct && v.FieldByName("Status").IsValid()
	}
	return false
}

// TestEveryStatusIsClassified: a kind whose type has a status classifies
// its status subresource (the reviews answer in their status and have
// none); the e2e TestDiscoveryIsClassified checks the same against what
// the API server serves.
func TestEveryStatusIsClassified(t *testing.T) {
	for _, k := range Kinds() {
		if k.Treatment == Virtual || k.Resource.Group == authzGroup || !hasStatusField(k) {
			continue
		}
		t.Run(k.Resource.String(), func(t *testing.T) {
			assert.NotEqual(t, SubresourceUnclassified, k.SubresourceOf("status").Class)
		})
	}
}
