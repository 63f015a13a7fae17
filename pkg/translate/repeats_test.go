package translate

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// TestRepeatedKeysReachTheUpstream: a JSON body that repeats keys (at the
// top, nested, in arrays, in a JSON patch) is forwarded repeating them as
// often, each occurrence translated, so that the API server reports the
// same duplicate fields it would have reported to the tenant.
func TestRepeatedKeysReachTheUpstream(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name, method, path, ct, body string
		want                         string
	}{
		{name: "typed object, nested", method: http.MethodPost, path: "/apis/apps/v1/namespaces/default/deployments", ct: MediaJSON,
			body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"unknownField":"foo","replicas":2,"replicas":3}}`,
			want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"acme-default"},"spec":{"unknownField":"foo","replicas":3,"replicas":3}}`},
		{name: "three times, and in an array", method: http.MethodPost, path: "/apis/apps/v1/namespaces/default/deployments", ct: MediaJSON,
			body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","name":"d","name":"e"},"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]}}}}`,
			want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"e","name":"e","name":"e"},"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","image":"y","image":"y"}]}}}}`},
		{name: "a repeated object, repeated translated", method: http.MethodPut, path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"metadata":{"name":"c","namespace":"beta-default"}}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"acme-beta-default"},"metadata":{"name":"c","namespace":"acme-beta-default"}}`},
		{name: "a binding's roleRef and subject, each occurrence translated", method: http.MethodPost,
			path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", ct: MediaJSON,
			body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"r"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view","name":"edit"},"subjects":[{"kind":"ServiceAccount","name":"a","namespace":"default","namespace":"x"}]}`,
			want: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"r"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"acme-edit","name":"acme-edit"},"subjects":[{"kind":"ServiceAccount","name":"a","namespace":"acme-x","namespace":"acme-x"}]}`},
		{name: "merge patch", method: http.MethodPatch, path: "/api/v1/namespaces/default/configmaps/c", ct: MediaMergePatch,
			body: `{"data":{"k":"1","k":"2"}}`, want: `{"data":{"k":"2","k":"2"}}`},
		{name: "json patch", method: http.MethodPatch, path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch,
			body: `[{"op":"add","path":"/data/k","path":"/metadata/namespace","value":"x"}]`,
			want: `[{"op":"add","path":"/metadata/namespace","path":"/metadata/namespace","value":"acme-x"}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Body: []byte(tc.body), Header: http.Header{"Content-Type": {tc.ct}}})
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(u.Body))
			var in, out any
			wantErrs, err := kjson.UnmarshalStrict([]byte(tc.body), &in)
			require.NoError(t, err)
			gotErrs, err := kjson.UnmarshalStrict(u.Body, &out)
			require.NoError(t, err)
			assert.Equal(t, errorTexts(wantErrs), errorTexts(gotErrs), "the API server finds the same repeated fields")
			assert.Empty(t, u.Warnings)
		})
	}
	t.Run("the typed object's strict error is the API server's", func(t *testing.T) {
		u, err := tr.TranslateRequest(Request{Method: http.MethodPost, Path: "/apis/apps/v1/namespaces/default/deployments",
			Body: []byte(cases[0].body), Header: http.Header{"Content-Type": {MediaJSON}}})
		require.NoError(t, err)
		strict, err := kjson.UnmarshalStrict(u.Body, &appsv1.Deployment{})
		require.NoError(t, err)
		assert.Equal(t, []string{`unknown field "spec.unknownField"`, `duplicate field "spec.replicas"`}, errorTexts(strict))
	})
}

// TestRepeatedYAMLKeys: a YAML body is forwarded as JSON, each key once (the
// last occurrence, translated); the translator reports the repetition as
// the API server would for the tenant's YAML, per fieldValidation.
func TestRepeatedYAMLKeys(t *testing.T) {
	tr := newTestTranslator(t)
	apply := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n  namespace: beta-default\ndata:\n  k: \"1\"\n  k: \"2\"\n"
	cases := []struct {
		name, method, path, ct, validation string
		code                               int32
		message                            string
		warnings                           []string
	}{
		{name: "apply, Strict", method: http.MethodPatch, path: "/api/v1/namespaces/default/configmaps/c", ct: MediaApplyPatch, validation: "Strict",
			code: 400, message: "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 6: key \"namespace\" already set in map\n  line 9: key \"k\" already set in map"},
		{name: "create, Strict", method: http.MethodPost, path: "/api/v1/namespaces/default/configmaps", ct: MediaYAML, validation: "Strict",
			code: 400, message: "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 6: key \"namespace\" already set in map\n  line 9: key \"k\" already set in map"},
		{name: "apply, Warn", method: http.MethodPatch, path: "/api/v1/namespaces/default/configmaps/c", ct: MediaApplyPatch, validation: "Warn",
			warnings: []string{`line 6: key "namespace" already set in map`, `line 9: key "k" already set in map`}},
		{name: "create, default (Warn)", method: http.MethodPost, path: "/api/v1/namespaces/default/configmaps", ct: MediaYAML,
			warnings: []string{`line 6: key "namespace" already set in map`, `line 9: key "k" already set in map`}},
		{name: "update, Ignore", method: http.MethodPut, path: "/api/v1/namespaces/default/configmaps/c", ct: MediaYAML, validation: "Ignore"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{}
			if tc.validation != "" {
				q.Set("fieldValidation", tc.validation)
			}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Query: q, Body: []byte(apply), Header: http.Header{"Content-Type": {tc.ct}}})
			if tc.code != 0 {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Equal(t, tc.code, st.Code)
				assert.Equal(t, tc.message, st.Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.warnings, u.Warnings)
			assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"acme-beta-default"},"data":{"k":"2"}}`, string(u.Body),
				"the last occurrence, as the API server keeps it, translated")
		})
	}
}

// TestRepeatedKeyTheTranslationRemoves: a repeated key the translation
// drops cannot be repeated upstream: the request is refused, naming it.
func TestRepeatedKeyTheTranslationRemoves(t *testing.T) {
	v, r, err := decodeRepeats([]byte(`{"metadata":{"name":"x","gone":1,"gone":2}}`))
	require.NoError(t, err)
	delete(v.(map[string]any)["metadata"].(map[string]any), "gone")
	_, err = marshalRepeating(v, r)
	require.Error(t, err)
	assert.Equal(t, int32(http.StatusBadRequest), ToStatus(err).Code)
	assert.Contains(t, err.Error(), `the body repeats the key "gone"`)
}

// TestRepeatedKeysOfAPatchInView: a json, merge or strategic merge patch is
// applied in the tenant's view and reaches the upstream as a derived merge
// patch that repeats nothing; the keys the tenant's patch repeated are
// reported as the API server reports them: a 422 under Strict, warnings
// under Warn (the default), nothing under Ignore.
func TestRepeatedKeysOfAPatchInView(t *testing.T) {
	tr := newTestTranslator(t)
	const current = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"acme-default","resourceVersion":"7"},"data":{"k":"0"}}`
	cases := []struct {
		name, ct, patch, validation string
		code                        int32
		message                     string
		warnings                    []string
	}{
		{name: "merge, default", ct: MediaMergePatch, patch: `{"data":{"k":"1","k":"2"}}`, warnings: []string{`duplicate field "data.k"`}},
		{name: "merge, Warn", ct: MediaMergePatch, patch: `{"data":{"k":"1","k":"2"}}`, validation: "Warn", warnings: []string{`duplicate field "data.k"`}},
		{name: "merge, Ignore", ct: MediaMergePatch, patch: `{"data":{"k":"1","k":"2"}}`, validation: "Ignore"},
		{name: "merge, Strict", ct: MediaMergePatch, patch: `{"data":{"k":"1","k":"2"}}`, validation: "Strict", code: 422,
			message: `strict decoding error: duplicate field "data.k"`},
		{name: "strategic, Strict", ct: MediaStrategic, patch: `{"data":{"k":"1","k":"2"}}`, validation: "Strict", code: 422,
			message: `strict decoding error: duplicate field "data.k"`},
		{name: "json patch, Warn", ct: MediaJSONPatch, patch: `[{"op":"replace","path":"/data/x","path":"/data/k","value":"2"}]`, validation: "Warn",
			warnings: []string{`json patch duplicate field "[0].path"`}},
		{name: "no repetition", ct: MediaMergePatch, patch: `{"data":{"k":"2"}}`, validation: "Strict"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{}
			if tc.validation != "" {
				q.Set("fieldValidation", tc.validation)
			}
			u, err := tr.TranslateRequest(Request{Method: http.MethodPatch, Path: "/api/v1/namespaces/default/configmaps/c", Query: q,
				Header: http.Header{"Content-Type": {tc.ct}}, Body: []byte(tc.patch)})
			require.NoError(t, err)
			require.Equal(t, PlanPatchInView, u.Plan)
			vp, err := tr.PatchInView(u, tc.ct, []byte(tc.patch), []byte(current))
			if tc.code != 0 {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Equal(t, tc.code, st.Code)
				assert.Equal(t, metav1.StatusReasonInvalid, st.Reason)
				assert.Contains(t, st.Message, tc.message)
				assert.NotContains(t, st.Message, "acme-", "the patched object is shown in the tenant's view")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.warnings, vp.Warnings)
			assert.Contains(t, string(vp.Body), `"k":"2"`, "the last occurrence, as the API server keeps it")
		})
	}
}

// BenchmarkDecodeRequestBody: what noting repeated keys costs a request body
// without any (decodeRepeats) beside the plain decoder (decodeAny).
func BenchmarkDecodeRequestBody(b *testing.B) {
	body := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"front"},"annotations":{"a":"1","b":"2"}},` +
		`"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[` +
		`{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],` +
		`"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"1","memory":"256Mi"}}}]}}}}`)
	b.Run("decodeAny", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeAny(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeRepeats", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := decodeRepeats(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
