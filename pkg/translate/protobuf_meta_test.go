package translate

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// protobufBody is obj as client-go sends it in protobuf.
func protobufBody(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, protobuf.NewSerializer(bodyScheme, bodyScheme).Encode(obj, &buf))
	return buf.Bytes()
}

// decodedMeta is the metadata the general path (DecodeBody) reads of a body.
func decodedMeta(t testing.TB, body []byte) (name, generateName string, labels map[string]any, ok bool) {
	obj, err := DecodeBody(MediaProtobuf, body)
	if err != nil {
		return "", "", nil, false
	}
	m := child(obj, "metadata")
	labels, _ = m["labels"].(map[string]any)
	return str(m, "name"), str(m, "generateName"), labels, true
}

// TestProtobufObjectMetaEveryKind: every object kind a protobuf body may
// hold keeps its metadata at field 1, so ProtobufObjectMeta reads it as the
// whole decode does.
func TestProtobufObjectMetaEveryKind(t *testing.T) {
	kinds := 0
	for gvk := range bodyScheme.AllKnownTypes() {
		obj, err := bodyScheme.New(gvk)
		require.NoError(t, err)
		accessor, err := meta.Accessor(obj)
		if err != nil || meta.IsListType(obj) {
			continue // no ObjectMeta: options, statuses, lists
		}
		if _, ok := obj.(interface{ Marshal() ([]byte, error) }); !ok {
			continue
		}
		accessor.SetName("web")
		accessor.SetGenerateName("web-")
		accessor.SetNamespace("default")
		accessor.SetLabels(map[string]string{"app": "web", "zoo.kubectl-zoo.io/propagate": "true"})
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		body := protobufBody(t, obj)
		got, ok := ProtobufObjectMeta(MediaProtobuf, body)
		require.True(t, ok, "%s", gvk)
		assert.Equal(t, "web", got.Name, "%s", gvk)
		assert.Equal(t, "web-", got.GenerateName, "%s", gvk)
		assert.Equal(t, map[string]string{"app": "web", "zoo.kubectl-zoo.io/propagate": "true"}, got.Labels, "%s", gvk)
		kinds++
	}
	assert.Greater(t, kinds, 100, "the scheme's object kinds")
}

// TestProtobufObjectMetaAsTheAPIServerReads: repeated metadata merges,
// the last envelope raw wins, and what is not such a body is left to the
// general path.
func TestProtobufObjectMetaAsTheAPIServerReads(t *testing.T) {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "first", Labels: map[string]string{"a": "1"}}}
	body := protobufBody(t, cm)
	second, err := (&metav1.ObjectMeta{Name: "second", Labels: map[string]string{"b": "2"}}).Marshal()
	require.NoError(t, err)

	// A second metadata field appended to the object: the API server merges.
	var env runtime.Unknown
	require.NoError(t, env.Unmarshal(body[len(protobufMagic):]))
	env.Raw = protowire.AppendBytes(protowire.AppendTag(env.Raw, objectMeta, protowire.BytesType), second)
	envBytes, err := env.Marshal()
	require.NoError(t, err)
	merged := append(append([]byte{}, protobufMagic...), envBytes...)

	for _, tc := range []struct {
		name string
		ct   string
		body []byte
		ok   bool
	}{
		{"plain", MediaProtobuf, body, true},
		{"repeated metadata", MediaProtobuf, merged, true},
		{"no magic", MediaProtobuf, body[len(protobufMagic):], false},
		{"truncated", MediaProtobuf, body[:len(body)-3], false},
		{"JSON", MediaJSON, []byte(`{"metadata":{"name":"x"}}`), false},
		{"protobuf labelled JSON", MediaJSON, body, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ProtobufObjectMeta(tc.ct, tc.body)
			require.Equal(t, tc.ok, ok)
			if !ok {
				return
			}
			name, generateName, labels, decoded := decodedMeta(t, tc.body)
			require.True(t, decoded)
			assert.Equal(t, name, got.Name)
			assert.Equal(t, generateName, got.GenerateName)
			assert.Equal(t, len(labels), len(got.Labels))
			for k, v := range got.Labels {
				assert.Equal(t, v, labels[k], k)
			}
		})
	}
}

// TestProtobufObjectMetaAgreesWithDecodeBody: on random damage to real
// bodies, whenever both read a body they read the same name, generateName
// and labels.
func TestProtobufObjectMetaAgreesWithDecodeBody(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	seeds := [][]byte{
		protobufBody(t, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"a": "1"}}, Data: map[string]string{"k": "v"}}),
		protobufBody(t, &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{GenerateName: "p-", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}),
	}
	both := 0
	for i := 0; i < 20000; i++ {
		body := append([]byte{}, seeds[i%len(seeds)]...)
		for n := rng.Intn(3) + 1; n > 0; n-- {
			body[len(protobufMagic)+rng.Intn(len(body)-len(protobufMagic))] = byte(rng.Intn(256))
		}
		got, ok := ProtobufObjectMeta(MediaProtobuf, body)
		name, generateName, labels, decoded := decodedMeta(t, body)
		if !ok || !decoded {
			continue
		}
		both++
		// The general path goes through JSON, which writes invalid UTF-8
		// as U+FFFD; an ASCII key (all the proxy asks about) is equal on
		// both sides exactly when it is on one.
		valid := func(s string) string {
			b, _ := json.Marshal(s)
			var out string
			require.NoError(t, json.Unmarshal(b, &out))
			return out
		}
		want := map[string]string{}
		for k, v := range labels {
			want[k], _ = v.(string)
		}
		if len(want) == 0 {
			want = nil
		}
		var gotLabels map[string]string
		for k, v := range got.Labels {
			if gotLabels == nil {
				gotLabels = map[string]string{}
			}
			gotLabels[valid(k)] = valid(v)
		}
		require.Equal(t, name, valid(got.Name), "body %x", body)
		require.Equal(t, generateName, valid(got.GenerateName), "body %x", body)
		require.True(t, reflect.DeepEqual(want, gotLabels), "body %x: %v != %v", body, want, gotLabels)
	}
	assert.Greater(t, both, 1000, "bodies both read")
}
