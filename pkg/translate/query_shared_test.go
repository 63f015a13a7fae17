package translate

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSharedListLegs: a list of a shared kind is two upstream lists whose
// selectors do not grow with the tenants: the cluster's objects
// (!TenantLabel) and the tenant's (TenantLabel=acme), each with the tenant's
// own selectors ANDed. Selectors that name TenantLabel are refused, whatever
// their operator, so that no combination reaches another tenant's objects.
func TestSharedListLegs(t *testing.T) {
	tr := New(MustTenant("acme"), Options{Shared: fakeShared{}})
	const platform, own = "!" + TenantLabel, TenantLabel + "=acme"
	long := strings.Repeat("x", 250) // fits unprefixed, not as acme-<name>
	cont := EncodeContinue(ContinueToken{Part: SharedPartOwn, Continue: "up", ResourceVersion: "12"})
	for _, tc := range []struct {
		name  string
		query url.Values
		// want holds the legs' queries, the cluster's first; code an error.
		want  []string
		start *ContinueToken
		code  int32
	}{
		{name: "plain", query: url.Values{"limit": {"5"}},
			want: []string{"labelSelector=" + url.QueryEscape(platform) + "&limit=5", "labelSelector=" + url.QueryEscape(own) + "&limit=5"}},
		{name: "the tenant's label selector is ANDed", query: url.Values{"labelSelector": {"tier=gold,app notin (x)"}},
			want: []string{"labelSelector=" + url.QueryEscape("app notin (x),tier=gold,"+platform), "labelSelector=" + url.QueryEscape("app notin (x),tier=gold,"+own)}},
		{name: "a name is stored unprefixed among the cluster's, prefixed among the tenant's", query: url.Values{"fieldSelector": {"metadata.name=fast"}},
			want: []string{"fieldSelector=metadata.name%3Dfast&labelSelector=" + url.QueryEscape(platform), "fieldSelector=metadata.name%3Dacme-fast&labelSelector=" + url.QueryEscape(own)}},
		{name: "not a name", query: url.Values{"fieldSelector": {"metadata.name!=fast"}},
			want: []string{"fieldSelector=metadata.name%21%3Dfast&labelSelector=" + url.QueryEscape(platform), "fieldSelector=metadata.name%21%3Dacme-fast&labelSelector=" + url.QueryEscape(own)}},
		{name: "a name no object of the tenant can have leaves the tenant's leg out", query: url.Values{"fieldSelector": {"metadata.name=" + long}},
			want: []string{"fieldSelector=metadata.name%3D" + long + "&labelSelector=" + url.QueryEscape(platform)}},
		{name: "not such a name holds for every object of the tenant", query: url.Values{"fieldSelector": {"metadata.name!=" + long}},
			want: []string{"fieldSelector=metadata.name%21%3D" + long + "&labelSelector=" + url.QueryEscape(platform), "labelSelector=" + url.QueryEscape(own)}},
		{name: "a continue token resumes a part", query: url.Values{"continue": {cont}, "limit": {"2"}},
			want:  []string{"labelSelector=" + url.QueryEscape(platform) + "&limit=2", "labelSelector=" + url.QueryEscape(own) + "&limit=2"},
			start: &ContinueToken{Part: SharedPartOwn, Continue: "up", ResourceVersion: "12"}},
		{name: "a fan-out token is refused", query: url.Values{"continue": {EncodeContinue(ContinueToken{Namespace: "acme-a"})}}, code: 400},
		{name: "TenantLabel of another tenant", query: url.Values{"labelSelector": {TenantLabel + "=beta"}}, code: 403},
		{name: "not TenantLabel", query: url.Values{"labelSelector": {"!" + TenantLabel}}, code: 403},
		{name: "TenantLabel exists", query: url.Values{"labelSelector": {TenantLabel}}, code: 403},
		{name: "TenantLabel in a set", query: url.Values{"labelSelector": {TenantLabel + " in (acme,beta)"}}, code: 403},
		{name: "TenantLabel not in a set", query: url.Values{"labelSelector": {TenantLabel + " notin (acme)"}}, code: 403},
		{name: "TenantLabel not equal", query: url.Values{"labelSelector": {"a=b," + TenantLabel + "!=acme"}}, code: 403},
		{name: "a selector that does not parse", query: url.Values{"labelSelector": {"a in (b"}}, code: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tr.TranslateRequest(Request{Method: http.MethodGet, Path: "/apis/storage.k8s.io/v1/storageclasses", Query: tc.query, Header: http.Header{}})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			require.NoError(t, err)
			require.Equal(t, PlanSharedList, u.Plan)
			var got []string
			for i, leg := range u.Legs {
				assert.Equal(t, []string{SharedPartPlatform, SharedPartOwn}[i], leg.Part)
				path, q := u.ForLeg(i, "")
				assert.Equal(t, "/apis/storage.k8s.io/v1/storageclasses", path)
				got = append(got, q.Encode())
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want[0], u.Query.Encode(), "the query the proxy reads limit and resourceVersion of")
			assert.Equal(t, tc.start, u.Start)
			_, q := u.ForLeg(0, "next")
			assert.Equal(t, "next", q.Get("continue"))
		})
	}
}

// TestSharedKindOtherVerbs: a watch of a shared kind is one upstream watch
// with the tenant's selectors only (the proxy drops other tenants' events);
// a deletecollection deletes the tenant's own objects only; a get is
// forwarded as it was.
func TestSharedKindOtherVerbs(t *testing.T) {
	tr := New(MustTenant("acme"), Options{Shared: fakeShared{}})
	for _, tc := range []struct {
		name   string
		method string
		path   string
		query  url.Values
		want   string
	}{
		{"watch", http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses", url.Values{"watch": {"true"}, "labelSelector": {"tier=gold"}}, "tier=gold"},
		{"watch of one name", http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses", url.Values{"watch": {"true"}, "fieldSelector": {"metadata.name=fast"}}, ""},
		{"deletecollection", http.MethodDelete, "/apis/storage.k8s.io/v1/storageclasses", url.Values{"labelSelector": {"tier=gold"}}, "tier=gold," + TenantLabel + "=acme"},
		{"get", http.MethodGet, "/apis/storage.k8s.io/v1/storageclasses/fast", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Query: tc.query, Header: http.Header{}})
			require.NoError(t, err)
			assert.Equal(t, PlanForward, u.Plan)
			assert.Empty(t, u.Legs)
			assert.Equal(t, tc.want, u.Query.Get("labelSelector"))
		})
	}
	u, err := tr.TranslateRequest(Request{Method: http.MethodGet, Path: "/apis/storage.k8s.io/v1/storageclasses",
		Query: url.Values{"watch": {"true"}, "fieldSelector": {"metadata.name=fast"}}, Header: http.Header{}})
	require.NoError(t, err)
	assert.Equal(t, "metadata.name=acme-fast", u.Query.Get("fieldSelector"), "the tenant's own class first, as a get resolves it")
	u, err = tr.TranslateRequest(Request{Method: http.MethodGet, Path: "/apis/storage.k8s.io/v1/storageclasses",
		Query: url.Values{"watch": {"true"}, "fieldSelector": {"metadata.name=standard"}}, Header: http.Header{}})
	require.NoError(t, err)
	assert.Equal(t, "metadata.name=standard", u.Query.Get("fieldSelector"), "else the cluster's")
	u, err = tr.TranslateRequest(Request{Method: http.MethodDelete, Path: "/apis/storage.k8s.io/v1/storageclasses",
		Query: url.Values{"fieldSelector": {"metadata.name=standard"}}, Header: http.Header{}})
	require.NoError(t, err)
	assert.Equal(t, "metadata.name=acme-standard", u.Query.Get("fieldSelector"), "a deletecollection names the tenant's own only")
	assert.Equal(t, TenantLabel+"=acme", u.Query.Get("labelSelector"))
}
