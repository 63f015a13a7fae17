package localproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// rolesUpstream is a fake upstream of ClusterRoles: it keeps what is
// created, answers patches with the stored role, and records the
// server-side applies it is sent.
type rolesUpstream struct {
	mu      sync.Mutex
	roles   map[string]*rbacv1.ClusterRole
	applies []string // "name fieldManager force"
	bodies  []rbacv1.ClusterRole
	// refuse is the role whose apply is refused.
	refuse string
}

func newRolesUpstream(standard ...string) *rolesUpstream {
	u := &rolesUpstream{roles: map[string]*rbacv1.ClusterRole{}}
	for _, name := range standard {
		u.roles[name] = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{translate.TenantLabel: "acme"}}}
	}
	return u
}

func (u *rolesUpstream) handle(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	defer u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, path), "/")
	body, _ := io.ReadAll(r.Body)
	write := func(code int, role *rbacv1.ClusterRole) {
		role.APIVersion, role.Kind = "rbac.authorization.k8s.io/v1", "ClusterRole"
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(role)
	}
	switch {
	case r.Method == http.MethodPost && name == "":
		var role rbacv1.ClusterRole
		_ = json.Unmarshal(body, &role)
		if r.URL.Query().Get("dryRun") == "" {
			u.roles[role.Name] = &role
		}
		write(http.StatusCreated, &role)
	case u.roles[name] == nil:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	case r.Method == http.MethodGet || r.Method == http.MethodPut:
		write(http.StatusOK, u.roles[name])
	case r.Header.Get("Content-Type") == "application/apply-patch+yaml":
		q := r.URL.Query()
		u.applies = append(u.applies, name+" "+q.Get("fieldManager")+" "+q.Get("force"))
		var role rbacv1.ClusterRole
		_ = json.Unmarshal(body, &role)
		u.bodies = append(u.bodies, role)
		if name == u.refuse {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)
			return
		}
		write(http.StatusOK, u.roles[name])
	default: // the merge patch of a patch in view: label it as asked
		var patch struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(body, &patch)
		for k, v := range patch.Metadata.Labels {
			u.roles[name].Labels[k] = v
		}
		write(http.StatusOK, u.roles[name])
	}
}

// TestClusterRoleWriteSwitchesAggregationOn: the tenant's first ClusterRole
// that aggregates into its admin, edit or view, created or labeled through
// the proxy, makes the proxy apply their aggregationRule, as the tenant,
// with its own field manager; nothing else does; a refused apply is a
// Warning, not a failure of the write; a standard role the tenant deleted
// is not made again.
func TestClusterRoleWriteSwitchesAggregationOn(t *testing.T) {
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	role := func(name, labels string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"` + name + `","labels":{` + labels + `}},
 "rules":[{"apiGroups":["example.com"],"resources":["widgets"],"verbs":["get"]}]}`
	}
	const toView = `"rbac.authorization.k8s.io/aggregate-to-view":"true"`
	all := []string{"acme-view kubectl-zoo-aggregation true", "acme-edit kubectl-zoo-aggregation true", "acme-admin kubectl-zoo-aggregation true"}
	standard := []string{"acme-view", "acme-edit", "acme-admin", "acme-system:aggregate-to-view"}
	for _, tc := range []struct {
		name, method, path, contentType, body string
		standard                              []string
		refuse                                string
		applies                               []string
		warning                               bool
	}{
		{name: "a create aggregating into view", method: http.MethodPost, path: path, body: role("widgets", toView), standard: standard, applies: all},
		{name: "a create aggregating into nothing", method: http.MethodPost, path: path, body: role("widgets", `"team":"a"`), standard: standard},
		{name: "a dry run", method: http.MethodPost, path: path + "?dryRun=All", body: role("widgets", toView), standard: standard},
		{name: "the tenant's edit, which aggregates into admin itself", method: http.MethodPut, path: path + "/edit",
			body: role("edit", `"rbac.authorization.k8s.io/aggregate-to-admin":"true"`), standard: standard},
		{name: "its base", method: http.MethodPut, path: path + "/system:aggregate-to-view",
			body: role("system:aggregate-to-view", toView), standard: standard},
		{name: "a label patched on", method: http.MethodPatch, path: path + "/widgets", contentType: "application/merge-patch+json",
			body: `{"metadata":{"labels":{` + toView + `}}}`, standard: append([]string{"acme-widgets"}, standard...), applies: all},
		{name: "an apply refused", method: http.MethodPost, path: path, body: role("widgets", toView), standard: standard, refuse: "acme-edit",
			applies: all[:2], warning: true},
		{name: "a deleted standard role", method: http.MethodPost, path: path, body: role("widgets", toView),
			standard: []string{"acme-view", "acme-admin"}, applies: []string{all[0], all[2]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newRolesUpstream(tc.standard...)
			up.refuse = tc.refuse
			p, _ := newTestProxy(t, up.handle)
			header := map[string]string{"Content-Type": "application/json"}
			if tc.contentType != "" {
				header["Content-Type"] = tc.contentType
			}
			rec := request(p, tc.method, tc.path, header, tc.body)
			require.Less(t, rec.Code, 300, rec.Body.String())
			up.mu.Lock()
			defer up.mu.Unlock()
			assert.Equal(t, tc.applies, up.applies)
			for i, applied := range up.bodies {
				name := strings.TrimPrefix(applied.Name, "acme-")
				assert.Equal(t, platformobj.StandardAggregationRule(translate.MustTenant("acme"), name), applied.AggregationRule, name)
				assert.Empty(t, applied.Rules, "%d: only the aggregationRule is applied", i)
				assert.Empty(t, applied.Labels, "%d: only the aggregationRule is applied", i)
			}
			if tc.warning {
				require.Len(t, rec.Header().Values("Warning"), 1)
				assert.Contains(t, rec.Header().Get("Warning"), "not aggregated into admin, edit and view yet")
				assert.NotContains(t, rec.Header().Get("Warning"), "acme-", "no upstream names")
			} else {
				assert.Empty(t, rec.Header().Values("Warning"))
			}
			if !slices.Contains(tc.standard, "acme-edit") {
				assert.NotContains(t, up.roles, "acme-edit", "a deleted standard role stays deleted")
			}
		})
	}
}
