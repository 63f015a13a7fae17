package localproxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestPreferYAML(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"application/yaml", true},
		{"application/yaml;as=Table;v=v1;g=meta.k8s.io", true},
		{"application/yaml, application/json", true},
		{"application/json, application/yaml", false},
		{"application/json;q=0.5, application/yaml", true},
		{"application/yaml;q=0.1, */*", false},
		{"text/html, application/yaml", true},
		{"application/vnd.kubernetes.protobuf, application/yaml", false},
		{"", false},
		{"*/*", false},
		{"application/yaml;q=0", false},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			assert.Equal(t, tc.want, preferYAML(tc.accept))
		})
	}
}

// TestYAMLAnswers: a client that prefers YAML gets YAML, as from the API
// server, for objects, lists (also fanned out), Tables and errors; streams
// stay as they are.
func TestYAMLAnswers(t *testing.T) {
	p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces" && r.Header.Get("Impersonate-User") == "":
			fakeNamespaces(w)
		case strings.HasSuffix(r.URL.Path, "/configmaps/missing"):
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,` +
				`"message":"configmaps \"missing\" not found","details":{"name":"missing","kind":"configmaps"}}`))
		case strings.HasSuffix(r.URL.Path, "/configmaps/cfg"):
			_, _ = w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"acme-default"},"data":{"big":"` + bigInt + `"}}`))
		case r.URL.Query().Get("watch") == "true":
			_, _ = w.Write([]byte(`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"acme-default"}}}` + "\n"))
		case strings.Contains(r.Header.Get("Accept"), "as=Table"):
			_, _ = w.Write([]byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},` +
				`"columnDefinitions":[{"name":"Name","type":"string","format":"name"}],"rows":[{"cells":["cfg"],"object":` +
				`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"cfg","namespace":"acme-default"}}}]}`))
		default:
			_, _ = w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
				`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"acme-default"},"spec":{"big":` + bigInt + `}}]}`))
		}
	})
	const yamlType, tableYAML = "application/yaml", "application/yaml;as=Table;v=v1;g=meta.k8s.io"
	for _, tc := range []struct {
		name, path, accept string
		code               int
		ct                 string
		want               []string
	}{
		{"get", "/api/v1/namespaces/default/configmaps/cfg", yamlType, 200, yamlType, []string{"kind: ConfigMap", "namespace: default", `big: "` + bigInt + `"`}},
		{"list", "/api/v1/namespaces/default/configmaps", yamlType, 200, yamlType, []string{"kind: ConfigMapList", "namespace: default", "big: " + bigInt}},
		{"list across namespaces", "/api/v1/configmaps", yamlType, 200, yamlType, []string{"kind: ConfigMapList", "big: " + bigInt}},
		{"table", "/api/v1/namespaces/default/configmaps", tableYAML, 200, yamlType, []string{"kind: Table", "- cfg"}},
		{"upstream error", "/api/v1/namespaces/default/configmaps/missing", yamlType, 404, yamlType, []string{"kind: Status", "reason: NotFound"}},
		{"proxy's own error", "/apis/apiregistration.k8s.io/v1/apiservices/x", yamlType, 403, yamlType, []string{"kind: Status", "reason: Forbidden"}},
		{"JSON preferred", "/api/v1/namespaces/default/configmaps/cfg", "application/json, application/yaml", 200, "application/json", []string{`"kind":"ConfigMap"`}},
		{"watch is a JSON stream", "/api/v1/namespaces/default/configmaps?watch=true", yamlType, 200, "application/json", []string{`"type":"ADDED"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := request(p, http.MethodGet, tc.path, map[string]string{"Accept": tc.accept}, "")
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Equal(t, tc.ct, rec.Header().Get("Content-Type"))
			body := rec.Body.String()
			for _, want := range tc.want {
				assert.Contains(t, body, want)
			}
			assert.NotContains(t, body, "acme-")
			if tc.ct == yamlType {
				var doc map[string]any
				require.NoError(t, yaml.Unmarshal(rec.Body.Bytes(), &doc), body)
			}
		})
	}
}
