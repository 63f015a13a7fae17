package localproxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// decodedBodyName is what bodyName answered before jsonBodyName: the name
// read from the whole body decoded by the translator's decoder.
func decodedBodyName(contentType string, body []byte) string {
	obj, err := translate.DecodeBody(contentType, body)
	if err != nil {
		return ""
	}
	meta, _ := obj["metadata"].(map[string]any)
	if name, _ := meta["name"].(string); name != "" {
		return name
	}
	name, _ := meta["generateName"].(string)
	return name
}

// TestBodyNameReadsWhatTheDecoderReads: the JSON fast path of bodyName
// names what decoding the whole body names, for every shape of body a
// tenant can send.
func TestBodyNameReadsWhatTheDecoderReads(t *testing.T) {
	for name, body := range map[string]string{
		"name":                     `{"metadata":{"name":"a"}}`,
		"generateName":             `{"metadata":{"generateName":"a-"}}`,
		"both":                     `{"metadata":{"name":"a","generateName":"b-"}}`,
		"empty name":               `{"metadata":{"name":"","generateName":"b-"}}`,
		"name not a string":        `{"metadata":{"name":5,"generateName":"b-"}}`,
		"name null":                `{"metadata":{"name":null}}`,
		"name an object":           `{"metadata":{"name":{"x":"y"},"generateName":"b-"}}`,
		"generateName not string":  `{"metadata":{"generateName":["b-"]}}`,
		"no metadata":              `{"kind":"ConfigMap"}`,
		"metadata not an object":   `{"metadata":"a"}`,
		"metadata null":            `{"metadata":null}`,
		"keys of another case":     `{"Metadata":{"name":"a"},"metadata":{"NAME":"b","Name":"c"}}`,
		"repeated name":            `{"metadata":{"name":"a","name":"b"}}`,
		"repeated metadata":        `{"metadata":{"name":"a"},"metadata":{"generateName":"b-"}}`,
		"escapes":                  `{"metadata":{"name":"\u0061\n\"b"}}`,
		"unicode":                  `{"metadata":{"name":"h\u00e9llo-\ud83d\ude00"}}`,
		"deep and large":           `{"spec":{"a":[1,2.5e3,true,null,{"b":{"c":[]}}]},"metadata":{"labels":{"x":"y"},"name":"a"}}`,
		"array":                    `[{"metadata":{"name":"a"}}]`,
		"a string":                 `"a"`,
		"malformed":                `{"metadata":{"name":"a"`,
		"trailing data":            `{"metadata":{"name":"a"}} {}`,
		"trailing comma":           `{"metadata":{"name":"a",}}`,
		"whitespace around":        " \n{\"metadata\" : {\"name\" : \"a\"}}\t",
		"big number beside":        `{"n":123456789012345678901234567890,"metadata":{"name":"a"}}`,
		"invalid utf-8 in a name":  "{\"metadata\":{\"name\":\"a\xffb\"}}",
		"control char in a string": "{\"metadata\":{\"name\":\"a\tb\"}}",
	} {
		t.Run(name, func(t *testing.T) {
			for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
				assert.Equal(t, decodedBodyName(ct, []byte(body)), bodyName(ct, []byte(body)), ct)
			}
		})
	}
}

// TestServeAuthenticatedRecordsTheOutcome: the Outcome given to
// ServeAuthenticated receives the code, both sides of the request and the
// names a create's body gave; a refused request leaves the upstream side
// empty.
func TestServeAuthenticatedRecordsTheOutcome(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(http.StatusCreated, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"new","namespace":"acme-default"}}`))
	for _, tc := range []struct {
		name, method, path, body string
		want                     Outcome
	}{
		{name: "a create", method: http.MethodPost, path: "/api/v1/namespaces/default/configmaps",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}`,
			want: Outcome{Code: http.StatusCreated, UpstreamMethod: http.MethodPost,
				UpstreamPath: "/api/v1/namespaces/acme-default/configmaps", Created: "new", UpstreamCreated: "new"}},
		{name: "a create by generateName", method: http.MethodPost, path: "/api/v1/namespaces/default/configmaps",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"new-"}}`,
			want: Outcome{Code: http.StatusCreated, UpstreamMethod: http.MethodPost,
				UpstreamPath: "/api/v1/namespaces/acme-default/configmaps", Created: "new-", UpstreamCreated: "new-"}},
		{name: "refused before translation", method: http.MethodPost, path: "/api/v1/namespaces/default/configmaps",
			body: `{"metadata":{"name":"x"`, want: Outcome{Code: http.StatusBadRequest}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			var out Outcome
			p.ServeAuthenticated(httptest.NewRecorder(), req, &out)
			out.Tenant = Outcome{}.Tenant
			assert.Equal(t, tc.want, out)
		})
	}
	p.ServeAuthenticated(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps/new", nil), nil)
}

// TestTranslatorReadsTheCreatedNames: the names the translator reads while
// it translates a create's body are what decoding the tenant's body and the
// translated one names.
func TestTranslatorReadsTheCreatedNames(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(http.StatusOK, `{}`))
	for _, tc := range []struct{ name, path, contentType, body string }{
		{"name", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`},
		{"generateName", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"a-"}}`},
		{"both", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","generateName":"b-"}}`},
		{"none", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","data":{"x":"y"}}`},
		{"name not a string", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5,"generateName":"b-"}}`},
		{"repeated name", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}`},
		{"yaml", "/api/v1/namespaces/default/configmaps", "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
		{"yaml repeated name", "/api/v1/namespaces/default/configmaps", "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n"},
		{"cluster-scoped", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"view"}}`},
		{"cluster-scoped generateName", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"generateName":"view-"}}`},
		{"namespace", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {tc.contentType}}
			u, err := p.tr.TranslateRequest(translate.Request{Method: http.MethodPost, Path: tc.path, Header: h, Body: []byte(tc.body)})
			require.NoError(t, err)
			require.True(t, u.Created.Read)
			assert.Equal(t, decodedBodyName(tc.contentType, []byte(tc.body)), u.Created.Tenant)
			assert.Equal(t, decodedBodyName(u.Header.Get("Content-Type"), u.Body), u.Created.Upstream)
		})
	}
}
