package localproxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestConfinedKindsOwnership: the proxy serves admission configuration with
// its own identity, so ownership is the tenant's label, not the name's
// prefix: the platform's policy acme-platform is not acme's, is not read,
// not written, not listed; acme's own is.
func TestConfinedKindsOwnership(t *testing.T) {
	grVAP := schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}
	p, up := newWalkProxy(t, walkFixture{grVAP, "acme-platform", ""}, walkFixture{grVAP, "acme-mine", "acme"}, walkFixture{grVAP, "beta-theirs", "beta"})
	const coll = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	body := []byte(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"platform","resourceVersion":"1"},"spec":{"failurePolicy":"Ignore"}}`)
	cases := []struct {
		name, method, path, ct string
		body                   []byte
		code                   int
	}{
		{"get the platform's", http.MethodGet, coll + "/platform", "", nil, http.StatusNotFound},
		{"replace the platform's", http.MethodPut, coll + "/platform", translate.MediaJSON, body, http.StatusNotFound},
		{"patch the platform's", http.MethodPatch, coll + "/platform", translate.MediaMergePatch, []byte(`{"spec":{"failurePolicy":"Ignore"}}`), http.StatusNotFound},
		{"delete the platform's", http.MethodDelete, coll + "/platform", "", nil, http.StatusNotFound},
		{"get another tenant's by its upstream name", http.MethodGet, coll + "/beta-theirs", "", nil, http.StatusNotFound},
		{"get its own", http.MethodGet, coll + "/mine", "", nil, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := send(p, tc.method, tc.path, tc.ct, tc.body)
			assert.Equal(t, tc.code, rec.Code, rec.Body.String())
		})
	}
	platform, ok := up.store.get(coll + "/acme-platform")
	require.True(t, ok)
	assert.NotContains(t, string(mustJSON(platform)), "Ignore", "the platform's policy is unchanged")
	for _, g := range up.got {
		if g.Method != http.MethodGet {
			assert.NotContains(t, g.Path, "acme-platform", "no write reached the platform's policy")
		}
	}
	rec := send(p, http.MethodGet, coll, "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), `"mine"`)
	assert.NotContains(t, rec.Body.String(), "platform")
	assert.NotContains(t, rec.Body.String(), "theirs")
	lists := 0
	for _, g := range up.got {
		if g.Path == coll && g.Method == http.MethodGet {
			lists++
			assert.Contains(t, g.RawQuery, "zoo.kubectl-zoo.io%2Ftenant%3Dacme", "lists select the tenant's label upstream")
		}
	}
	assert.Positive(t, lists, "the list reached the upstream")
}

// TestConfinedKindsAdminsOnly: a tenant user who is not an admin may not
// use the proxy's own identity for admission configuration: 403, and
// nothing reaches the upstream.
func TestConfinedKindsAdminsOnly(t *testing.T) {
	p, up := newWalkProxy(t)
	p.cfg.Admin = false
	for _, path := range []string{
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
		"/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/x",
	} {
		rec := send(p, http.MethodGet, path, "", nil)
		assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
		assert.Contains(t, rec.Body.String(), "only the tenant's administrators may")
	}
	for _, g := range up.got {
		assert.False(t, strings.Contains(g.Path, "admissionregistration") || strings.Contains(g.Path, "flowcontrol"), "%s reached the upstream", g.Path)
	}
}
