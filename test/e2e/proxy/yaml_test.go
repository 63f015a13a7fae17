package proxy_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestYAMLAnswers: Accept: application/yaml gets YAML, as from the API
// server: an object, lists (also across namespaces), a Table and errors.
func TestYAMLAnswers(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "-n", "default", "create", "configmap", "yaml-cfg", "--from-literal=k=v")
	t.Cleanup(func() { acme.run(t, "", "-n", "default", "delete", "configmap", "yaml-cfg") })
	c, host := rawClient(t, acme)
	for _, tc := range []struct {
		name, path, accept string
		code               int
		want               map[string]any
	}{
		{"get", "/api/v1/namespaces/default/configmaps/yaml-cfg", "application/yaml", 200, map[string]any{"kind": "ConfigMap"}},
		{"list", "/api/v1/namespaces/default/configmaps", "application/yaml", 200, map[string]any{"kind": "ConfigMapList"}},
		{"list across namespaces", "/api/v1/configmaps", "application/yaml", 200, map[string]any{"kind": "ConfigMapList"}},
		{"table", "/api/v1/namespaces/default/configmaps", "application/yaml;as=Table;v=v1;g=meta.k8s.io", 200, map[string]any{"kind": "Table"}},
		{"missing object", "/api/v1/namespaces/default/configmaps/nope", "application/yaml", 404,
			map[string]any{"kind": "Status", "reason": "NotFound", "message": `configmaps "nope" not found`}},
		{"refused by the proxy", "/apis/apiregistration.k8s.io/v1/apiservices", "application/yaml", 403, map[string]any{"kind": "Status", "reason": "Forbidden"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), "GET", host+tc.path, nil)
			require.NoError(t, err)
			req.Header.Set("Accept", tc.accept)
			resp, err := c.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.code, resp.StatusCode, string(body))
			assert.Equal(t, "application/yaml", resp.Header.Get("Content-Type"))
			assert.NotEqual(t, byte('{'), body[0], "YAML, not JSON: %s", body)
			var doc map[string]any
			require.NoError(t, yaml.Unmarshal(body, &doc))
			for k, v := range tc.want {
				assert.Equal(t, v, doc[k], k)
			}
			assert.NotContains(t, string(body), "acme-")
		})
	}
}

// TestAcceptVariants: what comes back for Accept headers with several types
// and conversions is what was asked for, whichever type carries the as=.
func TestAcceptVariants(t *testing.T) {
	acme := serve(t, "acme")
	c, host := rawClient(t, acme)
	const table = ";as=Table;v=v1;g=meta.k8s.io"
	const meta = ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	for _, tc := range []struct {
		name, path, accept, wantKind, wantType string
	}{
		{"kubectl's Table", "/api/v1/namespaces/default/configmaps", "application/json" + table + ", application/json", "Table", "application/json"},
		{"protobuf Table only", "/api/v1/namespaces/default/configmaps", "application/vnd.kubernetes.protobuf" + table, "Table", "application/json"},
		{"protobuf Table, JSON Table", "/api/v1/configmaps", "application/vnd.kubernetes.protobuf" + table + ", application/json" + table, "Table", "application/json"},
		{"metadata only", "/api/v1/namespaces/default/configmaps", "application/vnd.kubernetes.protobuf" + meta + ", application/json" + meta + ", application/json",
			"PartialObjectMetadataList", "application/json"},
		{"YAML Table after JSON", "/api/v1/namespaces/default/configmaps", "application/json" + table + ", application/yaml" + table, "Table", "application/json"},
		{"YAML Table preferred", "/api/v1/namespaces/default/configmaps", "application/json" + table + ";q=0.5, application/yaml" + table, "Table", "application/yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), "GET", host+tc.path, nil)
			require.NoError(t, err)
			req.Header.Set("Accept", tc.accept)
			resp, err := c.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
			assert.Equal(t, tc.wantType, resp.Header.Get("Content-Type"))
			var doc map[string]any
			require.NoError(t, yaml.Unmarshal(body, &doc))
			assert.Equal(t, tc.wantKind, doc["kind"])
			assert.NotContains(t, string(body), "acme-")
		})
	}
}
