package localproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
)

// fakeRBAC is a fake upstream with the tenant's namespaces, one stored
// ClusterRoleBinding slot and a record of RoleBinding writes.
type fakeRBAC struct {
	mu       sync.Mutex
	stored   []byte            // the stored ClusterRoleBinding
	rbWrites map[string]string // "METHOD path?query" → body
}

func (f *fakeRBAC) handle(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	const crbs = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
	switch {
	case r.URL.Path == "/api/v1/namespaces":
		_, _ = io.WriteString(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[
			{"metadata":{"name":"acme-default"}},{"metadata":{"name":"acme-web"}},{"metadata":{"name":"acmeb-x"}}]}`)
	case r.URL.Path == crbs && r.Method == http.MethodGet:
		_, _ = io.WriteString(w, `{"kind":"ClusterRoleBindingList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{},"items":[`+string(f.stored)+`]}`)
	case r.URL.Path == crbs && r.Method == http.MethodPost, strings.HasPrefix(r.URL.Path, crbs+"/") && r.Method == http.MethodPut:
		f.stored = body
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	case strings.HasPrefix(r.URL.Path, crbs+"/") && r.Method == http.MethodGet:
		_, _ = w.Write(f.stored)
	case strings.HasPrefix(r.URL.Path, crbs+"/") && r.Method == http.MethodDelete:
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	case r.URL.Path == crbs && r.Method == http.MethodDelete:
		f.stored = nil
		_, _ = io.WriteString(w, `{"kind":"ClusterRoleBindingList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{},"items":[]}`)
	case strings.HasSuffix(r.URL.Path, "/rolebindings") && r.Method == http.MethodGet:
		_, _ = io.WriteString(w, `{"kind":"RoleBindingList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{},"items":[
			{"metadata":{"name":"zoo-crb-acme-readers","labels":{"zoo.kubectl-zoo.io/clusterrolebinding":"acme-readers"}},"roleRef":{"kind":"ClusterRole","name":"acme-reader"}}]}`)
	case strings.Contains(r.URL.Path, "/rolebindings"):
		f.rbWrites[r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery] = string(body)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}`)
	}
}

func newFakeRBAC(t *testing.T) (*Proxy, *fakeRBAC) {
	f := &fakeRBAC{rbWrites: map[string]string{}}
	p, _ := newTestProxy(t, f.handle)
	return p, f
}

const readersCRB = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"readers"},
	"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"reader"},
	"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"dev"},{"kind":"ServiceAccount","name":"ci","namespace":"web"}]}`

func TestClusterRoleBindingCreate(t *testing.T) {
	p, f := newFakeRBAC(t)
	rec := request(p, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]string{"Content-Type": "application/json"}, readersCRB)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	var stored rbacv1.ClusterRoleBinding
	require.NoError(t, json.Unmarshal(f.stored, &stored))
	assert.Equal(t, "acme-readers", stored.Name)
	assert.Empty(t, stored.Subjects, "no subjects upstream")
	assert.Contains(t, stored.Annotations[crbstore.SubjectsAnnotation], "zoo:acme:dev")

	assert.Len(t, f.rbWrites, 2, "one RoleBinding per tenant namespace, none in acmeb-x: %v", f.rbWrites)
	for _, ns := range []string{"acme-default", "acme-web"} {
		var rb rbacv1.RoleBinding
		require.NoError(t, json.Unmarshal([]byte(f.rbWrites["POST /apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings?"]), &rb))
		assert.Equal(t, "zoo-crb-acme-readers", rb.Name)
		assert.Equal(t, "acme-reader", rb.RoleRef.Name)
		assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "zoo:acme:dev"},
			{Kind: "ServiceAccount", Name: "ci", Namespace: "acme-web"}}, rb.Subjects)
	}

	var got rbacv1.ClusterRoleBinding
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	assert.Equal(t, "readers", got.Name)
	assert.Equal(t, "reader", got.RoleRef.Name)
	assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "dev"}, {Kind: "ServiceAccount", Name: "ci", Namespace: "web"}}, got.Subjects)
	assert.Empty(t, got.Annotations)

	t.Run("new namespace", func(t *testing.T) {
		clear(f.rbWrites)
		require.NoError(t, p.grants.MaterializeInto(t.Context(), "acme-later"))
		assert.Contains(t, f.rbWrites, "POST /apis/rbac.authorization.k8s.io/v1/namespaces/acme-later/rolebindings?")
	})
	t.Run("delete", func(t *testing.T) {
		clear(f.rbWrites)
		rec := request(p, http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/readers", nil, "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		for _, ns := range []string{"acme-default", "acme-web"} {
			assert.Contains(t, f.rbWrites, "DELETE /apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings?labelSelector=zoo.kubectl-zoo.io%2Fclusterrolebinding%3Dacme-readers")
		}
	})
}

func TestClusterRoleBindingDeleteCollection(t *testing.T) {
	p, f := newFakeRBAC(t)
	rec := request(p, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]string{"Content-Type": "application/json"}, readersCRB)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	clear(f.rbWrites)
	rec = request(p, http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", nil, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	for _, ns := range []string{"acme-default", "acme-web"} {
		assert.Contains(t, f.rbWrites, "DELETE /apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings/zoo-crb-acme-readers?")
	}
	assert.Len(t, f.rbWrites, 2)
}

func TestClusterRoleBindingPatch(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, patch string
		want                     []string
		code                     int
	}{
		{"json", "application/json-patch+json", `[{"op":"replace","path":"/subjects/0/name","value":"ops"}]`, []string{"ops", "ci"}, http.StatusCreated},
		{"merge", "application/merge-patch+json", `{"subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:authenticated"}]}`, []string{"system:authenticated"}, http.StatusCreated},
		{"strategic", "application/strategic-merge-patch+json", `{"metadata":{"labels":{"team":"blue"}}}`, []string{"dev", "ci"}, http.StatusCreated},
		{"apply", "application/apply-patch+yaml", `{"metadata":{"labels":{"team":"blue"}}}`, nil, http.StatusUnsupportedMediaType},
		{"bad json patch", "application/json-patch+json", `[{"op":"remove","path":"/nope/0"}]`, nil, http.StatusUnprocessableEntity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, f := newFakeRBAC(t)
			rec := request(p, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]string{"Content-Type": "application/json"}, readersCRB)
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			rec = request(p, http.MethodPatch, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/readers", map[string]string{"Content-Type": tc.contentType}, tc.patch)
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			if tc.want == nil {
				return
			}
			var got rbacv1.ClusterRoleBinding
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			var names []string
			for _, s := range got.Subjects {
				names = append(names, s.Name)
			}
			assert.Equal(t, tc.want, names)
			var stored rbacv1.ClusterRoleBinding
			require.NoError(t, json.Unmarshal(f.stored, &stored))
			assert.Empty(t, stored.Subjects)
			assert.Equal(t, "acme", stored.Labels["zoo.kubectl-zoo.io/tenant"])
		})
	}
}

// TestRestoredTableTranslates: a ClusterRoleBinding Table through the whole
// read path (restore, then translate) shows the tenant's names in every cell.
func TestRestoredTableTranslates(t *testing.T) {
	ann := `{"zoo.kubectl-zoo.io/subjects":"[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"zoo:acme:dev\"},{\"kind\":\"Group\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"zoo:tenant:acme\"},{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"acme-ci\"}]"}`
	meta := `{"name":"acme-readers","labels":{"zoo.kubectl-zoo.io/tenant":"acme"},"annotations":` + ann + `}`
	table := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"},{"name":"Role"},{"name":"Age"},{"name":"Users"},{"name":"Groups"},{"name":"ServiceAccounts"}],
		"rows":[{"cells":["acme-readers","ClusterRole/acme-reader","1m","","",""],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + meta + `}}]}`
	upstream := jsonHandler(200, table)
	p, _ := newTestProxy(t, upstream)
	rec := request(p, http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"cells":["readers","ClusterRole/reader","1m","dev","system:authenticated","ci/builder"]`)
}

func TestHideMaterialized(t *testing.T) {
	p, up := newTestProxy(t, jsonHandler(200, `{"kind":"RoleBindingList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{},"items":[]}`))
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		selector                 string
	}{
		{"list", http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/namespaces/web/rolebindings?labelSelector=a%3Db", "", 200, "a=b,!zoo.kubectl-zoo.io/clusterrolebinding"},
		{"deletecollection", http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/namespaces/web/rolebindings", "", 200, "!zoo.kubectl-zoo.io/clusterrolebinding"},
		{"get reserved", http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/namespaces/web/rolebindings/zoo-crb-acme-x", "", 404, ""},
		{"create reserved", http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/web/rolebindings",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"zoo-crb-mine"},"roleRef":{"kind":"Role","name":"r"}}`, 403, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(up.requests)
			rec := request(p, tc.method, tc.path, map[string]string{"Content-Type": "application/json"}, tc.body)
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			if tc.selector != "" {
				assert.Equal(t, tc.selector, up.last().URL.Query().Get("labelSelector"))
			} else {
				assert.Len(t, up.requests, before, "nothing reached the upstream")
			}
		})
	}
}
