package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
)

// apiserverNamespace decodes a body as the API server does (the last of a
// repeated protobuf field or JSON key wins) and returns its namespace.
func apiserverNamespace(t *testing.T, body []byte) string {
	t.Helper()
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	require.NoError(t, err)
	return obj.(metav1.Object).GetNamespace()
}

func cmMessage(t *testing.T, ns string) []byte {
	t.Helper()
	cm := configMap("new", ns)
	cm.UID, cm.ResourceVersion, cm.CreationTimestamp, cm.ManagedFields = "", "", metav1.Time{}, nil
	b, err := cm.Marshal()
	require.NoError(t, err)
	return b
}

// TestRepeatedFieldsAreDecodedAsUpstream: a body whose repeated fields the
// translator and the API server could read differently is translated as the
// API server reads it, and what is forwarded has each field once.
func TestRepeatedFieldsAreDecodedAsUpstream(t *testing.T) {
	tr := newTestTranslator(t)
	good := configMap("new", "default")
	good.UID, good.ResourceVersion, good.CreationTimestamp, good.ManagedFields = "", "", metav1.Time{}, nil
	envelope := pbEncode(t, &good)
	field := func(num protowire.Number, val []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), val)
	}
	metaNS := func(ns string) []byte { return field(objectMeta, field(metaNamespace, []byte(ns))) }
	withRaw := func(raw []byte) []byte {
		typeMeta := field(unknownTypeMeta, append(field(typeMetaVersion, []byte("v1")), field(typeMetaKind, []byte("ConfigMap"))...))
		return append(append(append([]byte(nil), protobufMagic...), typeMeta...), field(unknownRaw, raw)...)
	}
	for _, tc := range []struct {
		name, contentType string
		body              []byte
	}{
		{"protobuf: a second raw object after the first", MediaProtobuf, append(append([]byte(nil), envelope...), field(unknownRaw, cmMessage(t, "beta-default"))...)},
		{"protobuf: a second metadata message", MediaProtobuf, withRaw(append(cmMessage(t, "default"), metaNS("beta-default")...))},
		{"protobuf: a second namespace in metadata", MediaProtobuf, withRaw(append(cmMessage(t, ""), field(objectMeta,
			append(field(metaNamespace, []byte("default")), field(metaNamespace, []byte("beta-default"))...))...))},
		{"JSON: a repeated namespace key", MediaJSON, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new","namespace":"default","namespace":"beta-default"}}`)},
		{"JSON: a repeated metadata key", MediaJSON, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new","namespace":"default"},"metadata":{"name":"new","namespace":"beta-default"}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstreamReads := apiserverNamespace(t, tc.body)
			require.Equal(t, "beta-default", upstreamReads, "the API server reads the last occurrence")
			u, err := tr.TranslateRequest(Request{Method: http.MethodPost, Path: "/api/v1/namespaces/default/configmaps", Body: tc.body,
				Header: http.Header{"Content-Type": {tc.contentType}}})
			require.NoError(t, err)
			assert.Equal(t, MediaJSON, u.Header.Get("Content-Type"), "re-encoded by the translator, not patched in place")
			assert.Equal(t, "acme-beta-default", apiserverNamespace(t, u.Body), "translated as the API server reads it")
			assert.NotContains(t, string(u.Body), `"default"`, "every occurrence translated")
			strict, err := kjson.UnmarshalStrict(u.Body, &corev1.ConfigMap{})
			require.NoError(t, err)
			if tc.contentType == MediaJSON {
				want, err := kjson.UnmarshalStrict(tc.body, &corev1.ConfigMap{})
				require.NoError(t, err)
				require.NotEmpty(t, want)
				assert.Equal(t, errorTexts(want), errorTexts(strict),
					"the forwarded body repeats the keys the tenant's did, so that the API server reports them as its fieldValidation says")
			} else {
				assert.Empty(t, strict, "the API server reports no repeated protobuf field; the forwarded body has none")
			}
		})
	}
	t.Run("YAML and merge patches are re-encoded", func(t *testing.T) {
		for _, ct := range []string{MediaYAML, MediaMergePatch} {
			method := http.MethodPost
			if ct == MediaMergePatch {
				method = http.MethodPatch
			}
			u, err := tr.TranslateRequest(Request{Method: method, Path: "/api/v1/namespaces/default/configmaps/new",
				Body:   []byte(`{"metadata":{"namespace":"default","namespace":"beta-default"}}`),
				Header: http.Header{"Content-Type": {ct}}})
			if err != nil {
				assert.Equal(t, int32(http.StatusBadRequest), ToStatus(err).Code, ct)
				continue
			}
			strict, err := kjson.UnmarshalStrict(u.Body, &map[string]any{})
			require.NoError(t, err)
			if ct == MediaYAML {
				assert.Empty(t, strict, "YAML is forwarded as JSON, each key once")
				assert.Equal(t, []string{`line 1: key "namespace" already set in map`}, u.Warnings,
					"the repetition is the translator's to report, as the API server would (Warn)")
			} else {
				assert.Equal(t, []string{`duplicate field "metadata.namespace"`}, errorTexts(strict), "a JSON patch keeps its repetition")
			}
			assert.NotContains(t, string(u.Body), `"beta-default"`, ct)
			assert.NotContains(t, string(u.Body), `"default"`, ct)
		}
	})
}

func errorTexts(errs []error) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}
