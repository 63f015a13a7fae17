package translate

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

func TestProtobufBodyMatchesJSONBody(t *testing.T) {
	tr := newTestTranslator(t)
	local := func(ns string, mutate ...func(*corev1.ConfigMap)) *corev1.ConfigMap {
		cm := configMap("new", ns, mutate...)
		cm.UID, cm.ResourceVersion, cm.CreationTimestamp = "", "", metav1.Time{}
		return &cm
	}
	cases := []struct {
		name string
		obj  runtime.Object
		fast bool // sent upstream as protobuf
		code int32
	}{
		{"namespace set", local("default"), true, 0},
		{"no namespace", local("", noNamespace), true, 0},
		{"tenant label", local("default", withTenantLabel), false, http.StatusForbidden},
		{"owner of a tenant CRD", local("default", withCROwner), false, 0},
		{"manager of a tenant CRD", local("default", withCRManager), false, 0},
		{"an over-long namespace", local(strings.Repeat("n", 63)), true, http.StatusUnprocessableEntity},
		{"another kind than the URL's", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"}}, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, verb := range []string{http.MethodPost, http.MethodPut} {
				path := "/api/v1/namespaces/default/configmaps"
				if verb == http.MethodPut {
					path += "/new"
				}
				pb, pbErr := tr.TranslateRequest(Request{Method: verb, Path: path, Body: pbEncode(t, tc.obj),
					Header: http.Header{"Content-Type": {MediaProtobuf}, "Accept": {MediaProtobuf}}})
				js, jsErr := tr.TranslateRequest(Request{Method: verb, Path: path, Body: []byte(viaEncoding(t, tc.obj)),
					Header: http.Header{"Content-Type": {MediaJSON}}})
				if tc.code != 0 {
					require.Error(t, pbErr)
					require.Error(t, jsErr)
					assert.Equal(t, tc.code, ToStatus(pbErr).Code)
					assert.Equal(t, ToStatus(jsErr).Message, ToStatus(pbErr).Message)
					continue
				}
				require.NoError(t, pbErr)
				require.NoError(t, jsErr)
				if !tc.fast {
					assert.Equal(t, MediaJSON, pb.Header.Get("Content-Type"))
					assert.Equal(t, string(js.Body), string(pb.Body))
					continue
				}
				require.Equal(t, MediaProtobuf, pb.Header.Get("Content-Type"))
				want, _, err := scheme.Codecs.UniversalDeserializer().Decode(js.Body, nil, nil)
				require.NoError(t, err)
				want.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				assertSemanticallyEqual(t, want, decoded(t, pb.Body))
			}
		})
	}
	t.Run("malformed protobuf is a 400", func(t *testing.T) {
		body := pbEncode(t, local("default"))
		_, err := tr.TranslateRequest(Request{Method: http.MethodPost, Path: "/api/v1/namespaces/default/configmaps",
			Body: body[:len(body)-3], Header: http.Header{"Content-Type": {MediaProtobuf}}})
		require.Error(t, err)
		assert.Equal(t, int32(http.StatusBadRequest), ToStatus(err).Code)
	})
}

// viaEncoding is obj as a client sends it in JSON.
func viaEncoding(t *testing.T, obj runtime.Object) string {
	t.Helper()
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	require.NoError(t, err)
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return string(b)
}
