package localproxy

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

var pbSerializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

func pbEncode(t *testing.T, obj runtime.Object, gvk string) []byte {
	t.Helper()
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	require.NoError(t, err)
	require.Equal(t, gvk, gvks[0].Kind)
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	var buf bytes.Buffer
	require.NoError(t, pbSerializer.Encode(obj, &buf))
	return buf.Bytes()
}

func protobufHandler(code int, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.WriteHeader(code)
		_, _ = w.Write(body)
	}
}

func TestProtobufAnswers(t *testing.T) {
	// Large enough to spill to disk: 3 000 ConfigMaps of 1 KiB.
	big := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}}
	for i := range 3000 {
		big.Items = append(big.Items, corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: "acme-default"},
			Data:       map[string]string{"payload": string(bytes.Repeat([]byte{'x'}, 1024))}})
	}
	big.Items = append(big.Items, corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "beta-default"}})
	one := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one", Namespace: "acme-default"}}
	notFound := &metav1.Status{Status: metav1.StatusFailure, Code: 404, Reason: metav1.StatusReasonNotFound, Message: `configmaps "x" not found`}

	for _, tc := range []struct {
		name, path  string
		handler     http.HandlerFunc
		code        int
		contentType string
		check       func(t *testing.T, obj runtime.Object)
	}{
		{"a list larger than memory", "/api/v1/namespaces/default/configmaps", protobufHandler(200, pbEncode(t, big, "ConfigMapList")),
			200, "application/vnd.kubernetes.protobuf", func(t *testing.T, obj runtime.Object) {
				l := obj.(*corev1.ConfigMapList)
				require.Len(t, l.Items, 3000, "the other tenant's item is dropped")
				assert.Equal(t, "7", l.ResourceVersion)
				for i, cm := range l.Items {
					assert.Equal(t, "default", cm.Namespace)
					assert.Equal(t, fmt.Sprintf("cm-%04d", i), cm.Name)
				}
			}},
		{"one object", "/api/v1/namespaces/default/configmaps/one", protobufHandler(200, pbEncode(t, one, "ConfigMap")),
			200, "application/vnd.kubernetes.protobuf", func(t *testing.T, obj runtime.Object) {
				assert.Equal(t, "default", obj.(*corev1.ConfigMap).Namespace)
			}},
		{"a Status comes back as JSON", "/api/v1/namespaces/default/configmaps/x", protobufHandler(404, pbEncode(t, notFound, "Status")),
			404, "application/json", func(t *testing.T, obj runtime.Object) {
				assert.Equal(t, metav1.StatusReasonNotFound, obj.(*metav1.Status).Reason)
			}},
		{"another tenant's object is not found", "/api/v1/namespaces/default/configmaps/one",
			protobufHandler(200, pbEncode(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one", Namespace: "beta-default"}}, "ConfigMap")),
			404, "application/json", nil},
		{"a malformed answer", "/api/v1/namespaces/default/configmaps", protobufHandler(200, []byte("k8s\x00\x0a\x05ab")),
			400, "application/json", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, up := newTestProxy(t, tc.handler)
			rec := request(p, http.MethodGet, tc.path, map[string]string{"Accept": "application/vnd.kubernetes.protobuf, */*"}, "")
			assert.Equal(t, "application/vnd.kubernetes.protobuf, application/json", up.last().Header.Get("Accept"))
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Equal(t, tc.contentType, rec.Header().Get("Content-Type"))
			if cl := rec.Header().Get("Content-Length"); cl != "" {
				assert.Equal(t, strconv.Itoa(rec.Body.Len()), cl)
			}
			if tc.check == nil {
				return
			}
			codecs := scheme.Codecs.UniversalDeserializer()
			obj, _, err := codecs.Decode(rec.Body.Bytes(), nil, nil)
			require.NoError(t, err)
			tc.check(t, obj)
		})
	}
}
