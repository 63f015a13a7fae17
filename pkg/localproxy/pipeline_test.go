package localproxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// exchangeOf translates a tenant request with p, as serve does, and returns
// its exchange, answered to the returned recorder.
func exchangeOf(t *testing.T, p *Proxy, method, path, body string) (*exchange, *httptest.ResponseRecorder) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/apply-patch+yaml")
	}
	w := httptest.NewRecorder()
	x := newExchange(w, req)
	x.body = []byte(body)
	u, err := p.tr.TranslateRequest(translate.Request{Method: method, Path: req.URL.Path, Query: req.URL.Query(), Header: req.Header, Body: x.body})
	require.NoError(t, err)
	x.u = u
	return x, w
}

// behavioursFor names the behaviours registered for u, in their order.
func behavioursFor(u *translate.UpstreamRequest) []string {
	var out []string
	for i := range behaviours {
		if behaviours[i].applies(u) {
			out = append(out, behaviours[i].name)
		}
	}
	return out
}

// TestBehavioursAreRegisteredByKind: every behaviour is a named unit of at
// least one phase; every resource one is registered for is a row of the
// kinds table; every row whose columns need a behaviour has it, and no row
// has two behaviours that choose the identity its requests go with.
func TestBehavioursAreRegisteredByKind(t *testing.T) {
	names := map[string]bool{}
	for _, b := range behaviours {
		t.Run(b.name, func(t *testing.T) {
			require.False(t, names[b.name], "a second behaviour named %s", b.name)
			names[b.name] = true
			_, before := b.does.(beforeBehaviour)
			_, refused := b.does.(refusalBehaviour)
			_, after := b.does.(afterBehaviour)
			assert.True(t, before || refused || after, "no phase")
			assert.True(t, b.every || b.rows != nil || len(b.resources) > 0, "registered for no kind")
			for _, gr := range b.resources {
				_, row := translate.LookupKind(gr)
				assert.True(t, row, "%s is no row of the kinds table", gr)
			}
		})
	}
	identities := []string{"tenant-group-identity", "confined-identity", "review-identity"}
	rows := append(translate.Kinds(), &translate.KindRule{Resource: schema.GroupResource{Group: "x.example.com", Resource: "things"}, Treatment: translate.TenantGroup})
	for _, k := range rows {
		t.Run(k.Resource.String(), func(t *testing.T) {
			got := behavioursFor(&translate.UpstreamRequest{Rule: k, Info: translate.RequestInfo{IsResourceRequest: true,
				APIGroup: k.Resource.Group, Resource: k.Resource.Resource}})
			want := []string{"missing-namespace"}
			if k.HasPodSpecs() {
				want = append(want, "api-access", "wake")
			}
			if k.Treatment == translate.Shared {
				want = append(want, "forget-shared")
			}
			switch {
			case k.Treatment == translate.TenantGroup:
				want = append(want, "tenant-group-identity")
			case k.Access == translate.AccessProxy && k.Treatment == translate.TenantOwned:
				want = append(want, "confined-identity")
			case k.ProxyCreates:
				want = append(want, "review-identity")
			}
			for _, name := range want {
				assert.Contains(t, got, name)
			}
			n := 0
			for _, name := range identities {
				if contains(got, name) {
					n++
				}
			}
			assert.LessOrEqual(t, n, 1, "two behaviours choose the identity: %v", got)
		})
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestBehavioursOfRequests: which behaviours a request passes, in order.
func TestBehavioursOfRequests(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(http.StatusOK, `{}`))
	for _, tc := range []struct {
		method, path string
		want         []string
	}{
		{http.MethodGet, "/api/v1/namespaces/default/configmaps/x", []string{"tenant-policies", "missing-namespace"}},
		{http.MethodPost, "/api/v1/namespaces/default/pods", []string{"api-access", "wake", "missing-namespace"}},
		{http.MethodPost, "/apis/apps/v1/namespaces/default/deployments", []string{"api-access", "wake", "missing-namespace"}},
		{http.MethodPost, "/api/v1/namespaces", []string{"tenant-policies", "namespace-index", "namespace-grants", "missing-namespace"}},
		{http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", []string{"cluster-role-bindings", "missing-namespace"}},
		{http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", []string{"materialized-role-bindings", "missing-namespace"}},
		{http.MethodPut, "/apis/rbac.authorization.k8s.io/v1/clusterroles/x", []string{"aggregation", "missing-namespace"}},
		{http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", []string{"crd-server-role", "missing-namespace"}},
		{http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", []string{"all-namespaces-review", "missing-namespace"}},
		{http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", []string{"review-identity", "all-namespaces-review", "missing-namespace"}},
		{http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", []string{"review-identity", "missing-namespace"}},
		{http.MethodGet, "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", []string{"confined-identity", "missing-namespace"}},
		{http.MethodGet, "/apis/x.example.com/v1/things", []string{"tenant-group-identity", "missing-namespace"}},
		{http.MethodPut, "/apis/storage.k8s.io/v1/storageclasses/fast", []string{"forget-shared", "missing-namespace"}},
		{http.MethodGet, "/version", []string{"missing-namespace"}},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			x, _ := exchangeOf(t, p, tc.method, tc.path, "")
			assert.Equal(t, tc.want, behavioursFor(x.u))
		})
	}
}
