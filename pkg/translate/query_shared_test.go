package translate

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedWithTenants is fakeShared that also names the other tenants.
type sharedWithTenants struct {
	fakeShared
	tenants []string
}

func (s sharedWithTenants) OtherTenants() []string { return s.tenants }

// TestSharedListsLeaveOtherTenantsOutUpstream: a list or watch of a shared
// kind asks the upstream to leave the other tenants' objects out, so that
// limit/continue pages stay full; the cluster's own (unlabeled) objects and
// the tenant's stay in.
func TestSharedListsLeaveOtherTenantsOutUpstream(t *testing.T) {
	withTenants := New(MustTenant("acme"), Options{Shared: sharedWithTenants{tenants: []string{"beta", "acme", "gamma", "Bad-Name"}}})
	without := New(MustTenant("acme"), Options{Shared: fakeShared{}})
	for _, tc := range []struct {
		name   string
		tr     *Translator
		method string
		path   string
		query  url.Values
		want   string
	}{
		{"list", withTenants, http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses", url.Values{"limit": {"5"}},
			TenantLabel + " notin (beta,gamma)"},
		{"watch with a selector", withTenants, http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses",
			url.Values{"watch": {"true"}, "labelSelector": {"tier=gold"}}, "tier=gold," + TenantLabel + " notin (beta,gamma)"},
		{"get is left alone", withTenants, http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses/fast", nil, ""},
		{"tenant-owned kinds keep their own selector", withTenants, http.MethodGet, "/api/v1/namespaces", nil, TenantLabel + "=acme"},
		{"without a lister, nothing is added", without, http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tc.tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Query: tc.query, Header: http.Header{}})
			require.NoError(t, err)
			assert.Equal(t, tc.want, u.Query.Get("labelSelector"))
		})
	}
}
