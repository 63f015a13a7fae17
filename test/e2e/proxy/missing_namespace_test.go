package proxy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMissingNamespace: the tenant admin asking in a namespace that does
// not exist gets what a cluster admin of a real cluster gets (404, or an
// empty list), worded in its own names; whether another tenant's or the
// platform's namespace of that name exists makes no difference; a tenant
// user without rights still gets 403.
func TestMissingNamespace(t *testing.T) {
	acme := serve(t, "acme")
	c, host := rawClient(t, acme)
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"get", "GET", "/api/v1/namespaces/nope/configmaps/x", "", 404, `configmaps \"x\" not found`},
		{"get in a group", "GET", "/apis/apps/v1/namespaces/nope/deployments/web", "", 404, `deployments.apps \"web\" not found`},
		{"create", "POST", "/api/v1/namespaces/nope/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, 404,
			`namespaces \"nope\" not found`},
		{"delete", "DELETE", "/api/v1/namespaces/nope/configmaps/x", "", 404, `configmaps \"x\" not found`},
		{"list", "GET", "/api/v1/namespaces/nope/configmaps", "", 200, `"items":[]`},
		{"the namespace", "GET", "/api/v1/namespaces/nope", "", 404, `namespaces \"nope\" not found`},
		// beta-default exists upstream (beta's): acme's answers are those of
		// its own absent namespace of that name, nothing about beta's.
		{"another tenant's namespace name", "GET", "/api/v1/namespaces/beta-default/configmaps/x", "", 404, `configmaps \"x\" not found`},
		{"create under another tenant's namespace name", "POST", "/api/v1/namespaces/beta-default/configmaps",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, 404, `namespaces \"beta-default\" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, c, tc.method, host+tc.path, nil, tc.body)
			require.Equal(t, tc.code, code, body)
			assert.Contains(t, body, tc.want)
			assert.NotContains(t, body, "acme-")
			if code == 404 {
				assert.Contains(t, body, `"reason":"NotFound"`)
			}
		})
	}
	t.Run("patch", func(t *testing.T) { // applied in the tenant's view (patch_view.go)
		code, body := do(t, c, "PATCH", host+"/api/v1/namespaces/nope/configmaps/x", map[string]string{"Content-Type": "application/merge-patch+json"},
			`{"data":{"a":"b"}}`)
		require.Equal(t, 404, code, body)
		assert.Contains(t, body, `configmaps \"x\" not found`)
		assert.NotContains(t, body, "acme-")
	})
	// What kubectl makes of it is what it prints against a real cluster.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"kubectl get", []string{"-n", "nope", "get", "configmap", "x"}, `Error from server (NotFound): namespaces "nope" not found`},
		{"kubectl create", []string{"-n", "nope", "create", "configmap", "x"}, `error: failed to create configmap: namespaces "nope" not found`},
		{"kubectl delete", []string{"-n", "nope", "delete", "configmap", "x"}, `Error from server (NotFound): configmaps "x" not found`},
		{"kubectl patch", []string{"-n", "nope", "patch", "configmap", "x", "-p", `{"data":{"a":"b"}}`}, `Error from server (NotFound): namespaces "nope" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := acme.run(t, "", tc.args...)
			require.Error(t, res.Err, res.Stdout)
			assert.Equal(t, tc.want, lastLine(res.Stderr))
		})
	}
	t.Run("kubectl list", func(t *testing.T) {
		res := acme.run(t, "", "-n", "nope", "get", "configmaps")
		require.NoError(t, res.Err, res.Stderr)
		assert.Contains(t, res.Stderr, "No resources found in nope namespace.")
	})

	dev := serve(t, "acme", "--user", "dev")
	for _, ns := range []string{"nope", "default"} {
		t.Run("a user without rights in "+ns, func(t *testing.T) {
			res := dev.run(t, "", "-n", ns, "get", "configmap", "x")
			require.Error(t, res.Err)
			assert.Contains(t, res.Stderr, "(Forbidden)")
			res = dev.run(t, "", "-n", ns, "create", "configmap", "x")
			require.Error(t, res.Err)
			assert.Contains(t, res.Stderr, "forbidden")
		})
	}
}

func lastLine(s string) string {
	l := lines(s)
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}
