package localproxy

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
)

// answer is an upstream answer of code with body.
func answer(code int, body string) *http.Response {
	return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
}

// count is the number of requests that reached u.
func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.requests)
}

// bodyOf reads what is left of an answer to translate.
func bodyOf(t *testing.T, resp *http.Response) string {
	t.Helper()
	body, err := readAll(resp) // httpserver_test.go
	require.NoError(t, err)
	return body
}

// recordOnly is an upstream that serves the tenant's record (a namespace
// create reads its Pod Security level), has no namespace acme-dev yet (an
// apply reads it) and fails everything else.
func recordOnly(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tenants/acme"):
		jsonHandler(http.StatusOK, `{"metadata":{"name":"acme"}}`)(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/acme-dev":
		jsonHandler(http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)(w, r)
	default:
		jsonHandler(http.StatusInternalServerError, upstreamFailure)(w, r)
	}
}

// TestBehaviourClusterRoleBindings: a create is written by the behaviour
// (without subjects upstream), whose after-phase gives an answer its
// subjects back; a read is left to forward.
func TestBehaviourClusterRoleBindings(t *testing.T) {
	p, f := newFakeRBAC(t)
	x, w := exchangeOf(t, p, http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/readers", "")
	assert.False(t, clusterRoleBindings{}.before(p, x), "a read is forwarded")
	x, w = exchangeOf(t, p, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", readersCRB)
	require.True(t, clusterRoleBindings{}.before(p, x))
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.NotContains(t, string(f.stored), `"subjects"`)
	resp := answer(http.StatusOK, string(f.stored))
	clusterRoleBindings{}.after(p, x, resp)
	assert.Contains(t, bodyOf(t, resp), `"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"zoo:acme:dev"}`)
}

// TestBehaviourMaterializedRoleBindings: a list of RoleBindings selects
// away the ones that materialize ClusterRoleBindings.
func TestBehaviourMaterializedRoleBindings(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(http.StatusInternalServerError, upstreamFailure))
	x, _ := exchangeOf(t, p, http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/namespaces/dev/rolebindings", "")
	require.False(t, materializedRoleBindings{}.before(p, x))
	assert.Contains(t, x.u.Query.Get("labelSelector"), crbstore.HiddenSelector(""))
}

// TestBehaviourNamespaceIndex: a namespace write's answer is noted in the
// index (and passed on whole); a dry run is not.
func TestBehaviourNamespaceIndex(t *testing.T) {
	const ns = `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"acme-dev","resourceVersion":"42"}}`
	for _, tc := range []struct {
		name, path string
		noted      uint64
	}{
		{"a create", "/api/v1/namespaces", 42},
		{"a dry run", "/api/v1/namespaces?dryRun=All", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, recordOnly)
			p.nsIndex = newNamespaceIndex()
			x, _ := exchangeOf(t, p, http.MethodPost, tc.path, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}`)
			resp := answer(http.StatusCreated, ns)
			namespaceIndex{}.after(p, x, resp)
			assert.Equal(t, ns, bodyOf(t, resp))
			assert.Equal(t, tc.noted, p.nsIndex.written["acme"])
		})
	}
}

// TestBehaviourNamespaceGrants: a namespace the tenant made gets its
// grants (here the upstream fails them: the tenant is warned), and the
// answer is passed on whole; an answer that made none is left alone.
func TestBehaviourNamespaceGrants(t *testing.T) {
	const ns = `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"acme-dev"}}`
	for _, tc := range []struct {
		name, method string
		code         int
		warned       bool
	}{
		{"a create", http.MethodPost, http.StatusCreated, true},
		{"an apply that made it", http.MethodPatch, http.StatusCreated, true},
		{"an apply of one that was there", http.MethodPatch, http.StatusOK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, up := newTestProxy(t, recordOnly)
			path := "/api/v1/namespaces"
			if tc.method == http.MethodPatch {
				path += "/dev"
			}
			x, w := exchangeOf(t, p, tc.method, path, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}`)
			before := up.count()
			resp := answer(tc.code, ns)
			namespaceGrants{}.after(p, x, resp)
			assert.Equal(t, ns, bodyOf(t, resp))
			if !tc.warned {
				assert.Equal(t, before, up.count(), "no upstream request")
				return
			}
			assert.Contains(t, strings.Join(w.Header().Values("Warning"), "\n"), "could not grant the tenant's admins their rights in namespace dev")
		})
	}
}

// TestBehaviourMissingNamespace: a refusal in a namespace of the tenant
// that does not exist is answered 404; in one that exists it stands.
func TestBehaviourMissingNamespace(t *testing.T) {
	for _, tc := range []struct {
		name, ns string
		answered bool
	}{
		{"absent", "nope", true},
		{"present", "prod", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/v1/namespaces/acme-nope" {
					jsonHandler(http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)(w, r)
					return
				}
				jsonHandler(http.StatusOK, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"acme-prod"}}`)(w, r)
			})
			x, w := exchangeOf(t, p, http.MethodGet, "/api/v1/namespaces/"+tc.ns+"/configmaps/x", "")
			require.Equal(t, tc.answered, missingNamespace{}.refused(p, x, refusal()))
			if tc.answered {
				assert.Equal(t, http.StatusNotFound, w.Code)
				assert.Contains(t, w.Body.String(), `configmaps \"x\" not found`)
			}
		})
	}
}

// TestBehaviourForgetShared: a write of a shared kind drops what the cache
// knows of the kind; a read keeps it.
func TestBehaviourForgetShared(t *testing.T) {
	classes := kindResource("storage.k8s.io", "StorageClass")
	for _, tc := range []struct {
		name, method string
		kept         bool
	}{
		{"a write", http.MethodPut, false},
		{"a delete", http.MethodDelete, false},
		{"a read", http.MethodGet, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, jsonHandler(http.StatusInternalServerError, upstreamFailure))
			p.shared.cache.get(classes, "acme-fast", func() sharedEntry { return sharedEntry{exists: true} })
			x, _ := exchangeOf(t, p, tc.method, "/apis/storage.k8s.io/v1/storageclasses/fast", "")
			forgetShared{}.after(p, x, answer(http.StatusOK, `{}`))
			assert.Equal(t, tc.kept, len(p.shared.cache.entries) == 1)
		})
	}
}
