package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

var pbSerializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// pbEncode encodes obj as the API server does: TypeMeta set, protobuf.
func pbEncode(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	obj = obj.DeepCopyObject()
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	require.NoError(t, err)
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	var buf bytes.Buffer
	require.NoError(t, pbSerializer.Encode(obj, &buf))
	return buf.Bytes()
}

// pbTranslate runs TranslateProtobuf and frames the answer as the proxy does.
func pbTranslate(tr *Translator, rule *KindRule, in []byte) ([]byte, *ProtobufAnswer, error) {
	var msg bytes.Buffer
	answer, err := tr.TranslateProtobuf(rule, bytes.NewReader(in), &msg)
	if err != nil || answer.JSON != nil {
		return nil, answer, err
	}
	out := append(answer.Head(int64(msg.Len())), msg.Bytes()...)
	out = append(out, answer.Tail()...)
	if int64(len(out)) != answer.Len(int64(msg.Len())) {
		panic("Len disagrees with Head, message and Tail")
	}
	return out, answer, nil
}

// viaJSON translates obj the way the JSON path does and returns the result
// decoded into its Go type.
func viaJSON(t *testing.T, tr *Translator, rule *KindRule, obj runtime.Object) runtime.Object {
	t.Helper()
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	require.NoError(t, err)
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	in, err := json.Marshal(obj)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, tr.TranslateList(rule, bytes.NewReader(in), &out))
	typed, err := scheme.Scheme.New(gvks[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(out.Bytes(), typed))
	typed.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return typed
}

// decoded decodes a protobuf answer.
func decoded(t *testing.T, data []byte) runtime.Object {
	t.Helper()
	obj, _, err := pbSerializer.Decode(data, nil, nil)
	require.NoError(t, err)
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj
}

// assertSemanticallyEqual compares API objects as the API machinery does
// (times by instant, nil and empty lists alike: protobuf cannot tell them
// apart).
func assertSemanticallyEqual(t *testing.T, want, got runtime.Object) {
	t.Helper()
	if !apiequality.Semantic.DeepEqual(want, got) {
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		assert.Fail(t, "objects differ", "want %s\n got %s", w, g)
	}
}

func configMap(name, ns string, mutate ...func(*corev1.ConfigMap)) corev1.ConfigMap {
	cm := corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: "0b6c9a55-4b4e-4a53-9a39-2a4d7d2b7f10", ResourceVersion: "42",
			CreationTimestamp: metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)),
			Labels:            map[string]string{"app": "bench"}, Annotations: map[string]string{"note": "acme-default stays"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:k":{}}}`)}}}},
		Data:       map[string]string{"k": "v"},
		BinaryData: map[string][]byte{"b": {0, 1, 2}},
	}
	for _, m := range mutate {
		m(&cm)
	}
	return cm
}

var (
	withTenantLabel = func(cm *corev1.ConfigMap) { cm.Labels[TenantLabel] = "acme" }
	withCROwner     = func(cm *corev1.ConfigMap) {
		cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "acme-stable.example.com/v1", Kind: "CronTab", Name: "c", UID: "u"}}
	}
	withCRManager = func(cm *corev1.ConfigMap) {
		cm.ManagedFields = append(cm.ManagedFields, metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "acme-stable.example.com/v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{}`)}})
	}
	noNamespace = func(cm *corev1.ConfigMap) { cm.Namespace = "" }
)

func TestTranslateProtobufMatchesJSON(t *testing.T) {
	tr := newTestTranslator(t)
	cms := tr.Rule(schema.GroupResource{Resource: "configmaps"}, true)
	secrets := tr.Rule(schema.GroupResource{Resource: "secrets"}, true)
	list := func(items ...corev1.ConfigMap) *corev1.ConfigMapList {
		return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "99", Continue: "token"}, Items: items}
	}
	cases := []struct {
		name string
		rule *KindRule
		obj  runtime.Object
		// fast is whether every item takes the namespace-only path.
		fast bool
	}{
		{"list", cms, list(configMap("a", "acme-default"), configMap("b", "acme-default")), true},
		{"empty list", cms, list(), true},
		{"other tenants' items are dropped", cms, list(configMap("a", "beta-default"), configMap("b", "acme-default")), true},
		{"tenant label", cms, list(configMap("a", "acme-default", withTenantLabel)), false},
		{"owner of a tenant CRD", cms, list(configMap("a", "acme-default", withCROwner), configMap("b", "acme-default")), false},
		{"manager of a tenant CRD", cms, list(configMap("a", "acme-default", withCRManager)), false},
		{"one object", cms, ptr(configMap("a", "acme-default")), true},
		{"one object needing the general path", cms, ptr(configMap("a", "acme-default", withCROwner)), false},
		{"no namespace", cms, ptr(configMap("a", "acme-default", noNamespace)), true},
		{"secrets", secrets, &corev1.SecretList{Items: []corev1.Secret{{
			ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "acme-kube-public"}, Data: map[string][]byte{"p": []byte("secret")}}}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := pbEncode(t, tc.obj)
			out, answer, err := pbTranslate(tr, tc.rule, in)
			require.NoError(t, err)
			require.Nil(t, answer.JSON)
			assertSemanticallyEqual(t, viaJSON(t, tr, tc.rule, tc.obj), decoded(t, out))
			assert.Equal(t, tc.fast, allItemsFast(t, tr, tc.rule, tc.obj))
		})
	}
}

// allItemsFast reports whether every item of obj takes the namespace-only
// path, and checks that path agrees with the general one where it does.
func allItemsFast(t *testing.T, tr *Translator, rule *KindRule, obj runtime.Object) bool {
	t.Helper()
	var items []runtime.Object
	switch o := obj.(type) {
	case *corev1.ConfigMapList:
		for i := range o.Items {
			items = append(items, &o.Items[i])
		}
	case *corev1.SecretList:
		for i := range o.Items {
			items = append(items, &o.Items[i])
		}
	default:
		items = []runtime.Object{obj}
	}
	fast := true
	for _, item := range items {
		raw, err := item.(protobufObject).(interface{ Marshal() ([]byte, error) }).Marshal()
		require.NoError(t, err)
		gvks, _, err := scheme.Scheme.ObjectKinds(item)
		require.NoError(t, err)
		got, done, fastErr := tr.protobufItemNamespaced(rule, raw, nil)
		fast = fast && done
		if !done {
			continue
		}
		want, err := tr.protobufItemGeneral(rule, gvks[0], raw, nil)
		if IsNotTenants(fastErr) {
			assert.True(t, IsNotTenants(err))
			continue
		}
		require.NoError(t, fastErr)
		require.NoError(t, err)
		assert.Equal(t, want, got, "the namespace-only path and the general path disagree")
	}
	return fast
}

func ptr[T any](v T) *T { return &v }

func TestTranslateProtobufStatusAndErrors(t *testing.T) {
	tr := newTestTranslator(t)
	cms := tr.Rule(schema.GroupResource{Resource: "configmaps"}, true)

	t.Run("a Status becomes JSON in the tenant's terms", func(t *testing.T) {
		st := &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
			Message: `configmaps "x" not found`, Details: &metav1.StatusDetails{Name: "x", Kind: "configmaps"}}
		_, answer, err := pbTranslate(tr, cms, pbEncode(t, st))
		require.NoError(t, err)
		require.NotNil(t, answer.JSON)
		var got metav1.Status
		require.NoError(t, json.Unmarshal(answer.JSON, &got))
		assert.Equal(t, int32(http.StatusNotFound), got.Code)
		assert.Equal(t, metav1.StatusReasonNotFound, got.Reason)
		assert.Equal(t, "Status", got.Kind)
	})
	t.Run("one object of another tenant is not found", func(t *testing.T) {
		_, _, err := pbTranslate(tr, cms, pbEncode(t, ptr(configMap("a", "beta-default"))))
		require.Error(t, err)
		assert.True(t, IsNotTenants(err))
		assert.Equal(t, int32(http.StatusNotFound), ToStatus(err).Code)
	})

	valid := pbEncode(t, &corev1.ConfigMapList{Items: []corev1.ConfigMap{configMap("a", "acme-default"), configMap("b", "acme-default")}})
	bad := map[string][]byte{
		"empty":           nil,
		"no magic":        []byte("{}"),
		"magic only":      []byte("k8s\x00"),
		"another kind":    pbEncode(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "acme-default"}}),
		"wire type":       append([]byte("k8s\x00"), 0x08, 0x01),
		"raw before kind": append([]byte("k8s\x00"), 0x12, 0x00),
		"encoded content": append(append([]byte(nil), valid...), 0x1a, 0x04, 'g', 'z', 'i', 'p'),
		"oversized":       append([]byte("k8s\x00"), 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f),
	}
	for cut := 5; cut < len(valid); cut += 7 {
		bad["truncated"+string(rune('a'+cut%26))+string(rune('a'+cut/26%26))] = valid[:cut]
	}
	for name, in := range bad {
		t.Run(name, func(t *testing.T) {
			_, _, err := pbTranslate(tr, cms, in)
			require.Error(t, err)
			assert.Equal(t, int32(http.StatusBadRequest), ToStatus(err).Code, err.Error())
		})
	}
}

func TestAcceptsProtobuf(t *testing.T) {
	tr := newTestTranslator(t)
	const clientGo = "application/vnd.kubernetes.protobuf, */*"
	cases := []struct {
		name, method, path, query, accept string
		want                              bool
	}{
		{"get", http.MethodGet, "/api/v1/namespaces/default/configmaps/x", "", clientGo, true},
		{"list", http.MethodGet, "/api/v1/namespaces/default/configmaps", "", "application/vnd.kubernetes.protobuf", true},
		{"list of another group", http.MethodGet, "/apis/coordination.k8s.io/v1/namespaces/default/leases", "", clientGo, true},
		{"JSON asked", http.MethodGet, "/api/v1/namespaces/default/configmaps", "", "application/json, */*", false},
		{"protobuf second", http.MethodGet, "/api/v1/namespaces/default/configmaps", "", "application/json, application/vnd.kubernetes.protobuf", false},
		{"Table", http.MethodGet, "/api/v1/namespaces/default/configmaps", "", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json", false},
		{"watch", http.MethodGet, "/api/v1/namespaces/default/configmaps", "watch=true", clientGo, true},
		{"all namespaces (fanned out)", http.MethodGet, "/api/v1/configmaps", "", clientGo, false},
		{"a watch in all namespaces", http.MethodGet, "/api/v1/configmaps", "watch=true", clientGo, false},
		{"create", http.MethodPost, "/api/v1/namespaces/default/configmaps", "", clientGo, true},
		{"update", http.MethodPut, "/api/v1/namespaces/default/configmaps/x", "", clientGo, true},
		{"delete", http.MethodDelete, "/api/v1/namespaces/default/configmaps/x", "", clientGo, false},
		{"a kind with cross references", http.MethodGet, "/api/v1/namespaces/default/pods", "", clientGo, false},
		{"a subresource", http.MethodGet, "/api/v1/namespaces/default/pods/p/log", "", clientGo, false},
		{"namespaces", http.MethodGet, "/api/v1/namespaces", "", clientGo, false},
		{"a custom resource", http.MethodGet, "/apis/stable.example.com/v1/namespaces/default/crontabs", "", clientGo, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Request{Method: tc.method, Path: tc.path, Header: http.Header{"Accept": {tc.accept}}}
			if tc.query != "" {
				r.Query = map[string][]string{"watch": {"true"}}
			}
			if tc.method == http.MethodPost || tc.method == http.MethodPut {
				r.Header.Set("Content-Type", MediaJSON)
				r.Body = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`)
			}
			u, err := tr.TranslateRequest(r)
			require.NoError(t, err)
			got := u.Header.Get("Accept")
			if tc.want {
				assert.Equal(t, MediaProtobuf+", "+MediaJSON, got)
			} else {
				assert.NotContains(t, got, "protobuf")
			}
		})
	}
}

// FuzzTranslateProtobuf feeds arbitrary upstream answers to the protobuf
// paths: they must never panic, and what TranslateProtobuf produces from a
// well-formed answer must decode.
func FuzzTranslateProtobuf(f *testing.F) {
	f.Add(pbEncode(f, &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"},
		Items: []corev1.ConfigMap{configMap("a", "acme-default"), configMap("b", "beta-default"), configMap("c", "acme-x", withCROwner)}}))
	f.Add(pbEncode(f, ptr(configMap("a", "acme-default", withTenantLabel))))
	f.Add(pbEncode(f, &metav1.Status{Code: 404, Message: "gone"}))
	f.Add(protobufWatchStream(f, []watchEvent{{"ADDED", ptr(configMap("a", "acme-default"))}, {"ERROR", &metav1.Status{Code: 410}}}))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr := New(MustTenant("acme"), Options{})
		rule := tr.Rule(schema.GroupResource{Resource: "configmaps"}, true)
		_ = tr.TranslateProtobufWatch(rule, bytes.NewReader(in), io.Discard) // must not panic
		out, answer, err := pbTranslate(tr, rule, in)
		if err != nil || answer.JSON != nil {
			return
		}
		if _, _, err := pbSerializer.Decode(in, nil, nil); err != nil {
			return // garbage the namespace-only path may copy through as it is
		}
		_, _, err = pbSerializer.Decode(out, nil, nil)
		require.NoError(t, err)
	})
}

// BenchmarkTranslateProtobufList10000ConfigMaps is TranslateProtobuf over a
// protobuf list of 10 000 ConfigMaps of 512 bytes, as the apiserver sends it.
func BenchmarkTranslateProtobufList10000ConfigMaps(b *testing.B) {
	tr := newTestTranslator(b)
	rule := tr.Rule(schema.GroupResource{Resource: "configmaps"}, true)
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for i := range 10000 {
		list.Items = append(list.Items, configMap(fmt.Sprintf("cm-%05d", i), "acme-default", func(cm *corev1.ConfigMap) {
			cm.Data = map[string]string{"payload": strings.Repeat("x", 512)}
		}))
	}
	data := pbEncode(b, list)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.TranslateProtobuf(rule, bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
