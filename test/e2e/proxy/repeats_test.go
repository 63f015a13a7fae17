package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// answer is what a server said to one request.
type answer struct {
	code     int
	message  string
	warnings []string
}

func send(t *testing.T, c *http.Client, method, url, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{code: resp.StatusCode, warnings: resp.Header.Values("Warning")}
	var st struct {
		Kind, Message string
	}
	if json.Unmarshal(b, &st) == nil && st.Kind == "Status" {
		a.message = st.Message
	}
	return a
}

// TestRepeatedKeysAsUpstream: a body that repeats keys gets, through the
// proxy, the answer the API server gives it directly — the same 400 under
// fieldValidation=Strict (with the unknown fields, in order), the same
// warnings under Warn, none under Ignore — for JSON and for YAML
// (server-side apply, whose line numbers are the tenant's); the object
// written holds the last occurrence, as upstream. A repeated namespace
// cannot smuggle another tenant's namespace past the translator: whichever
// occurrence the API server keeps, it was translated.
func TestRepeatedKeysAsUpstream(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "repeats")
	admin(t, "create", "namespace", "zoo-e2e-repeats")
	proxied, proxyHost := rawClient(t, acme)
	cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	direct, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)

	const jsonBody = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"unknownField":"x","data":{"k":"1","k":"2"}}`
	const yamlBody = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  k: \"1\"\n  k: \"2\"\n"
	cases := []struct {
		name, method, ct, body, validation string
		code                               int
		apply                              bool
	}{
		{name: "json-strict", method: http.MethodPost, ct: "application/json", body: jsonBody, validation: "Strict", code: 400},
		{name: "json-warn", method: http.MethodPost, ct: "application/json", body: jsonBody, validation: "Warn", code: 201},
		{name: "json-default", method: http.MethodPost, ct: "application/json", body: jsonBody, code: 201},
		{name: "json-ignore", method: http.MethodPost, ct: "application/json", body: jsonBody, validation: "Ignore", code: 201},
		{name: "yaml-strict", method: http.MethodPost, ct: "application/yaml", body: yamlBody, validation: "Strict", code: 400},
		{name: "yaml-warn", method: http.MethodPost, ct: "application/yaml", body: yamlBody, validation: "Warn", code: 201},
		{name: "apply-strict", method: http.MethodPatch, ct: "application/apply-patch+yaml", body: yamlBody, validation: "Strict", code: 400, apply: true},
		{name: "apply-warn", method: http.MethodPatch, ct: "application/apply-patch+yaml", body: yamlBody, validation: "Warn", code: 201, apply: true},
		{name: "apply-ignore", method: http.MethodPatch, ct: "application/apply-patch+yaml", body: yamlBody, validation: "Ignore", code: 201, apply: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.ReplaceAll(tc.body, "NAME", "rep-"+tc.name)
			path := func(ns string) string {
				p := "/api/v1/namespaces/" + ns + "/configmaps"
				if tc.apply {
					p += "/rep-" + tc.name
				}
				q := "?fieldManager=e2e"
				if tc.validation != "" {
					q += "&fieldValidation=" + tc.validation
				}
				return p + q
			}
			want := send(t, direct, tc.method, cfg.Host+path("zoo-e2e-repeats"), tc.ct, body)
			got := send(t, proxied, tc.method, proxyHost+path("repeats"), tc.ct, body)
			require.Equal(t, tc.code, want.code, "the API server directly: %+v", want)
			if tc.validation == "Warn" {
				require.NotEmpty(t, want.warnings, "the API server warns of the repetition")
			}
			assert.Equal(t, want, got, "through the proxy as directly")
			if tc.code == 201 {
				assert.Equal(t, "2", admin(t, "-n", "acme-repeats", "get", "cm", "rep-"+tc.name, "-o", "jsonpath={.data.k}"), "the last occurrence")
			}
		})
	}

	t.Run("patches, applied in the tenant's view", func(t *testing.T) {
		// Through the proxy the patch reaches the upstream as a merge patch
		// the translator derived; the repetition in the tenant's is
		// reported by the translator as the API server reports it.
		admin(t, "-n", "zoo-e2e-repeats", "create", "cm", "rep-patched", "--from-literal=k=0")
		acme.k(t, "-n", "repeats", "create", "cm", "rep-patched", "--from-literal=k=0")
		for _, ct := range []string{"application/merge-patch+json", "application/strategic-merge-patch+json"} {
			for _, validation := range []string{"Strict", "Warn", "Ignore"} {
				path := func(ns string) string {
					return "/api/v1/namespaces/" + ns + "/configmaps/rep-patched?fieldValidation=" + validation
				}
				body := `{"data":{"k":"1","k":"2"}}`
				want := send(t, direct, http.MethodPatch, cfg.Host+path("zoo-e2e-repeats"), ct, body)
				got := send(t, proxied, http.MethodPatch, proxyHost+path("repeats"), ct, body)
				assert.Equal(t, want.code, got.code, "%s %s: %+v", ct, validation, got)
				assert.Equal(t, want.warnings, got.warnings, "%s %s", ct, validation)
				if validation == "Strict" {
					require.Equal(t, http.StatusUnprocessableEntity, want.code, "%+v", want)
					assert.Contains(t, want.message, `strict decoding error: duplicate field "data.k"`)
					assert.Contains(t, got.message, `strict decoding error: duplicate field "data.k"`)
					assert.NotContains(t, got.message, "acme-")
				}
			}
		}
		assert.Equal(t, "2", admin(t, "-n", "acme-repeats", "get", "cm", "rep-patched", "-o", "jsonpath={.data.k}"))
	})

	t.Run("a repeated namespace is translated in every occurrence", func(t *testing.T) {
		for _, order := range [][2]string{{"beta-default", "repeats"}, {"repeats", "beta-default"}} {
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"smuggled","namespace":"` + order[0] + `","namespace":"` + order[1] + `"}}`
			got := send(t, proxied, http.MethodPost, proxyHost+"/api/v1/namespaces/repeats/configmaps?fieldValidation=Ignore", "application/json", body)
			if order[1] == "repeats" {
				assert.Equal(t, 201, got.code, "%+v", got)
			} else {
				assert.Equal(t, 400, got.code, "%+v", got)
				assert.Contains(t, got.message, "does not match the namespace")
				assert.NotContains(t, got.message, "acme-")
			}
		}
		assert.Equal(t, "acme-repeats", admin(t, "get", "cm", "-A", "--field-selector=metadata.name=smuggled", "-o", "jsonpath={.items[*].metadata.namespace}"))
	})
	acme.k(t, "delete", "namespace", "repeats", "--wait=false")
	admin(t, "delete", "namespace", "zoo-e2e-repeats", "--wait=false")
}
