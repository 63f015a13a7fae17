package localproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crdUpstream is a fake upstream with acme's cluster-scoped CRD
// gadgets.acme-srv.example.org, which refuses the proxy's own identity (no
// Impersonate-User) on the gadgets, as the API server refuses the server's
// ServiceAccount before its ClusterRole is aggregated. It records the
// ClusterRoles written and who wrote them.
type crdUpstream struct {
	mu    sync.Mutex
	roles []rbacv1.ClusterRole
	by    []string
	// platform makes the CRD the platform's: a group with the tenant's
	// prefix but without the tenant's label.
	platform bool
	// ownCRs counts requests for the group's objects with the own identity.
	ownCRs int
}

const upstreamGadgetCRD = `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1",
 "metadata":{"name":"gadgets.acme-srv.example.org","uid":"u-1","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},
 "spec":{"group":"acme-srv.example.org","scope":"%s","names":{"plural":"gadgets","kind":"Gadget"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}}}]}}`

func (u *crdUpstream) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	imp := r.Header.Get("Impersonate-User")
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	switch {
	case r.URL.Path == "/apis":
		_, _ = io.WriteString(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"acme-srv.example.org",
 "versions":[{"groupVersion":"acme-srv.example.org/v1","version":"v1"}],"preferredVersion":{"groupVersion":"acme-srv.example.org/v1","version":"v1"}}]}`)
	case r.URL.Path == "/api":
		_, _ = io.WriteString(w, `{"kind":"APIVersions","versions":["v1"]}`)
	case r.URL.Path == "/api/v1":
		_, _ = io.WriteString(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[]}`)
	case r.URL.Path == "/apis/acme-srv.example.org/v1":
		_, _ = io.WriteString(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"acme-srv.example.org/v1",
 "resources":[{"name":"gadgets","namespaced":false,"kind":"Gadget","verbs":["get","list","watch","create","delete"]}]}`)
	case r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":true}}`)
	case strings.HasPrefix(r.URL.Path, "/apis/acme-srv.example.org/v1/gadgets") && imp == "":
		u.mu.Lock()
		u.ownCRs++
		u.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,
 "message":"gadgets.acme-srv.example.org is forbidden: User \"system:serviceaccount:zoo-system:zoo-server\" cannot list resource \"gadgets\""}`)
	case r.URL.Path == crds+"/gadgets.acme-srv.example.org":
		crd := strings.Replace(upstreamGadgetCRD, "%s", "Cluster", 1)
		if u.platform {
			crd = strings.Replace(crd, `,"labels":{"zoo.kubectl-zoo.io/tenant":"acme"}`, "", 1)
		}
		_, _ = io.WriteString(w, crd)
	case r.URL.Path == crds && r.Method == http.MethodPost && imp != "":
		var crd struct {
			Spec struct {
				Scope string `json:"scope"`
			} `json:"spec"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &crd)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, strings.Replace(upstreamGadgetCRD, "%s", crd.Spec.Scope, 1))
	case r.URL.Path == "/apis/rbac.authorization.k8s.io/v1/clusterroles" && r.Method == http.MethodPost:
		var role rbacv1.ClusterRole
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &role)
		u.mu.Lock()
		u.roles, u.by = append(u.roles, role), append(u.by, imp)
		u.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}
}

func (u *crdUpstream) written() ([]rbacv1.ClusterRole, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]rbacv1.ClusterRole(nil), u.roles...), append([]string(nil), u.by...)
}

// wantGadgetRole: the one ClusterRole written is the CRD's, written as the
// tenant.
func wantGadgetRole(t *testing.T, up *crdUpstream) {
	t.Helper()
	roles, by := up.written()
	require.Len(t, roles, 1)
	assert.Equal(t, "zoo:acme:admin", by[0], "written as the tenant, never with the proxy's own identity")
	assert.Equal(t, "acme-zoo-crd-gadgets.srv.example.org", roles[0].Name)
	assert.Equal(t, "true", roles[0].Labels[tenantapi.ServerAggregateLabel])
	assert.Equal(t, []string{"acme-srv.example.org"}, roles[0].Rules[0].APIGroups)
	assert.Equal(t, []string{"gadgets", "gadgets/status"}, roles[0].Rules[0].Resources)
}

// TestCRDWriteGrantsTheServer: creating a cluster-scoped CRD through the proxy
// writes its CRDServerClusterRole as the tenant; a namespaced CRD, a dry run
// and a failed create write none.
func TestCRDWriteGrantsTheServer(t *testing.T) {
	crd := func(scope string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.srv.example.org"},
 "spec":{"group":"srv.example.org","scope":"` + scope + `","names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true}]}}`
	}
	const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	for _, tc := range []struct {
		name, path, scope string
		want              bool
	}{
		{"cluster-scoped", path, "Cluster", true},
		{"namespaced", path, "Namespaced", false},
		{"dry run", path + "?dryRun=All", "Cluster", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := &crdUpstream{}
			p, _ := newTestProxy(t, up.handle)
			rec := request(p, http.MethodPost, tc.path, nil, crd(tc.scope))
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			assert.Empty(t, rec.Header().Values("Warning"))
			if tc.want {
				wantGadgetRole(t, up)
				return
			}
			roles, _ := up.written()
			assert.Empty(t, roles)
		})
	}
}

// TestOwnIdentityRefusalNamesNoIdentity: when the upstream refuses the
// proxy's own identity on a tenant's cluster-scoped CRD objects, the tenant
// gets a Forbidden that names the CRD's role, not that identity, and the
// proxy writes the role again as the tenant.
func TestOwnIdentityRefusalNamesNoIdentity(t *testing.T) {
	up := &crdUpstream{}
	p, _ := newTestProxy(t, up.handle)
	merge := map[string]string{"Content-Type": "application/merge-patch+json"}
	for _, tc := range []struct {
		method, path string
		header       map[string]string
	}{
		{http.MethodGet, "/apis/srv.example.org/v1/gadgets", nil},
		{http.MethodGet, "/apis/srv.example.org/v1/gadgets?watch=true", nil},
		{http.MethodGet, "/apis/srv.example.org/v1/gadgets/one", nil},
		{http.MethodPatch, "/apis/srv.example.org/v1/gadgets/one", merge}, // patch_view.go
	} {
		body := ""
		if tc.method == http.MethodPatch {
			body = `{"spec":{"size":2}}`
		}
		rec := request(p, tc.method, tc.path, tc.header, body)
		require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
		var st metav1.Status
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
		assert.Equal(t, metav1.StatusReasonForbidden, st.Reason)
		assert.NotContains(t, rec.Body.String(), "zoo-server")
		assert.NotContains(t, rec.Body.String(), "serviceaccount")
		assert.NotContains(t, rec.Body.String(), "acme-")
		assert.Contains(t, st.Message, "zoo-crd-gadgets.srv.example.org")
		assert.Contains(t, st.Message, "retry")
	}
	roles, _ := up.written()
	require.Len(t, roles, 4, "each refusal writes the role again")
	up.roles, up.by = up.roles[:1], up.by[:1]
	wantGadgetRole(t, up)
}

// TestPrefixAloneIsNoOwnership: a group that starts with the tenant's name
// but whose CRD is not labeled as the tenant's (the platform's
// cert-manager.io for a tenant "cert") is never served with the proxy's own
// identity.
func TestPrefixAloneIsNoOwnership(t *testing.T) {
	up := &crdUpstream{platform: true}
	p, _ := newTestProxy(t, up.handle)
	for _, path := range []string{"/apis/srv.example.org/v1/gadgets", "/apis/srv.example.org/v1/gadgets/one"} {
		rec := request(p, http.MethodGet, path, nil, "")
		require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
		assert.Contains(t, rec.Body.String(), "no CustomResourceDefinition of tenant acme serves")
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	assert.Zero(t, up.ownCRs, "nothing of the platform's group was asked with the proxy's own identity")
}
