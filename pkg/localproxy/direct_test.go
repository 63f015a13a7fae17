package localproxy

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// newDirectProxy returns a proxy for tenant acme's user dev with the user's
// own credential (Config.Direct) in front of handler.
func newDirectProxy(t *testing.T, handler http.HandlerFunc) (*Proxy, *upstream) {
	t.Helper()
	up := &upstream{handler: handler}
	ts := httptest.NewServer(up)
	t.Cleanup(ts.Close)
	p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "dev-own"}, Tenant: "acme", User: "dev", Groups: []string{"qa"},
		Direct: true, Token: testToken})
	require.NoError(t, err)
	return p, up
}

func TestDirectConfigImpersonatesNoOne(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"admin", Config{Admin: true}},
		{"extra", Config{Extra: map[string][]string{"scopes": {"x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Upstream, cfg.Tenant, cfg.Token, cfg.Direct = &rest.Config{Host: "https://x"}, "acme", testToken, true
			_, err := New(cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "impersonates no one")
		})
	}
}

// TestDirectRequests: with the user's own credential no request carries an
// Impersonate-* header (not even one a client smuggles), an all-namespaces
// list the identity may not fan out is Forbidden with the reason, and the
// lookups the identity may not make are not made.
func TestDirectRequests(t *testing.T) {
	p, up := newDirectProxy(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/namespaces" {
			jsonHandler(403, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)(w, r)
			return
		}
		jsonHandler(200, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"acme-default"}}`)(w, r)
	})
	rec := request(p, "GET", "/api/v1/namespaces/default/configmaps/cfg",
		map[string]string{"Impersonate-User": "system:admin", "Impersonate-Group": "system:masters"}, "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"namespace":"default"`)

	rec = request(p, "GET", "/api/v1/configmaps", nil, "")
	require.Equal(t, 403, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"reason":"Forbidden"`)
	assert.Contains(t, rec.Body.String(), `kubectl-zoo serves with user \"dev\"'s own credential, which may not list namespaces upstream`)

	sent := len(up.requests)
	assert.False(t, p.shared.IsOtherTenant("beta"))
	level, err := newPlatformLookup(p).PodSecurityLevel()
	require.NoError(t, err)
	assert.Equal(t, "restricted", level)
	value, found, err := newPlatformLookup(p).PriorityClassValue("high")
	require.NoError(t, err)
	assert.Equal(t, int64(0), value)
	assert.False(t, found)
	assert.Len(t, up.requests, sent, "lookups the tenant identity may not make went upstream")

	require.Len(t, up.requests, 2)
	for _, r := range up.requests {
		assert.Equal(t, "Bearer dev-own", r.Header.Get("Authorization"), r.URL.Path)
		for h := range r.Header {
			assert.NotContains(t, h, "Impersonate", "%s carried %s", r.URL.Path, h)
		}
	}
}

// TestDirectConfinedKinds: with the user's own credential the admission and
// flow-control kinds the proxy writes with its own identity are refused
// with the reason (not "only the tenant's administrators may"), and nothing
// goes upstream.
func TestDirectConfinedKinds(t *testing.T) {
	p, up := newDirectProxy(t, jsonHandler(200, `{}`))
	rec := request(p, "POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", nil,
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"p"},"spec":{}}`)
	require.Equal(t, 403, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `serves with user \"dev\"'s own credential, and writes validatingadmissionpolicies for tenants only with an identity of its own`)
	assert.Empty(t, up.requests)
}

// TestDirectCredentialMayImpersonateItsOwnIdentity: with the tenant user's
// own credential (Direct), an upstream config that impersonates exactly
// that user and its groups (a certificate of the cluster's signer, whose
// kubeconfig says so) is the credential; any other impersonation — another
// user, one group more or less, a UID, an extra, or any when not Direct —
// is refused.
func TestDirectCredentialMayImpersonateItsOwnIdentity(t *testing.T) {
	own := rest.ImpersonationConfig{UserName: "zoo:acme:carol", Groups: []string{"zoo:acme:ops", "zoo:tenant:acme"}}
	cases := []struct {
		name   string
		direct bool
		im     rest.ImpersonationConfig
		ok     bool
	}{
		{name: "its own identity", direct: true, im: own, ok: true},
		{name: "not direct", im: own},
		{name: "another user", direct: true, im: rest.ImpersonationConfig{UserName: "zoo:acme:admin", Groups: own.Groups}},
		{name: "a group less", direct: true, im: rest.ImpersonationConfig{UserName: own.UserName, Groups: []string{"zoo:tenant:acme"}}},
		{name: "zoo:admins", direct: true, im: rest.ImpersonationConfig{UserName: own.UserName, Groups: append([]string{"zoo:admins"}, own.Groups...)}},
		{name: "a UID", direct: true, im: rest.ImpersonationConfig{UserName: own.UserName, Groups: own.Groups, UID: "u"}},
		{name: "an extra", direct: true, im: rest.ImpersonationConfig{UserName: own.UserName, Groups: own.Groups, Extra: map[string][]string{"k": {"v"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Upstream: &rest.Config{Host: "https://x", Impersonate: c.im}, Tenant: "acme", User: "carol", Groups: []string{"ops"}, Direct: c.direct}
			_, err := cfg.complete()
			if c.ok {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "already impersonates someone")
		})
	}
}
