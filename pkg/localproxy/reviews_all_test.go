package localproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// namespaceReviews is an upstream with the tenant namespaces nss that
// allows an access review in the namespaces of allow (upstream names, ""
// for a cluster-wide review) and records the namespaces asked.
type namespaceReviews struct {
	nss   []string
	allow map[string]bool
	// fail is a namespace whose review the upstream fails (500).
	fail string
	// refuse refuses every review, naming the identity (403).
	refuse bool
	// going are namespaces being deleted (a deletionTimestamp).
	going map[string]bool
	mu    sync.Mutex
	asked []string
}

func (u *namespaceReviews) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces" {
		var items []string
		for _, ns := range u.nss {
			items = append(items, fmt.Sprintf(`{"metadata":{"name":%q}}`, ns))
		}
		_, _ = io.WriteString(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`+strings.Join(items, ",")+`]}`)
		return
	}
	if ns, ok := strings.CutPrefix(r.URL.Path, "/api/v1/namespaces/"); ok && r.Method == http.MethodGet {
		deletion := ""
		if u.going[ns] {
			deletion = `,"deletionTimestamp":"2026-11-28T00:00:00Z"`
		}
		_, _ = fmt.Fprintf(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":%q%s}}`, ns, deletion)
		return
	}
	var review map[string]any
	_ = json.NewDecoder(r.Body).Decode(&review)
	attrs, _ := review["spec"].(map[string]any)["resourceAttributes"].(map[string]any)
	ns, _ := attrs["namespace"].(string)
	u.mu.Lock()
	u.asked = append(u.asked, ns)
	u.mu.Unlock()
	if u.refuse {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,
 "message":"subjectaccessreviews.authorization.k8s.io is forbidden: User \"system:serviceaccount:zoo-system:zoo-server\" cannot create resource"}`)
		return
	}
	if ns == u.fail && ns != "" {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"etcd is gone"}`)
		return
	}
	review["status"] = map[string]any{"allowed": u.allow[ns], "reason": `RBAC: allowed by RoleBinding "zoo-tenant-admins/` + ns + `"`}
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(review)
}

// TestAllNamespacesReviews: a review of a namespaced resource in all
// namespaces is answered from the same review in each of the tenant's
// namespaces (list and watch: one allows; other verbs: all allow), in
// the tenant's names; every other review goes upstream once, as sent.
func TestAllNamespacesReviews(t *testing.T) {
	const ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	three := []string{"acme-a", "acme-b", "acme-c"}
	for _, tc := range []struct {
		name    string
		nss     []string
		allow   []string
		attrs   string
		allowed bool
		fail    string
		failed  bool     // the review fails: no answer either way
		asked   []string // nil: each namespace (in any order)
		going   []string // namespaces being deleted
	}{
		{name: "list: one namespace allows", nss: three, allow: []string{"acme-b"}, attrs: `{"verb":"list","resource":"pods"}`, allowed: true},
		{name: "watch: none allows", nss: three, attrs: `{"verb":"watch","resource":"pods"}`},
		{name: "create: all allow", nss: three, allow: three, attrs: `{"verb":"create","group":"apps","resource":"deployments"}`, allowed: true},
		{name: "create: one denies", nss: three, allow: []string{"acme-a", "acme-c"}, attrs: `{"verb":"create","group":"apps","resource":"deployments"}`},
		// A namespace being deleted (its RoleBindings go first) decides
		// nothing, as the fan-out reads nothing there.
		{name: "create: a namespace being deleted denies nothing", nss: three, allow: []string{"acme-a", "acme-b"}, going: []string{"acme-c"},
			attrs: `{"verb":"create","group":"apps","resource":"deployments"}`, allowed: true},
		{name: "list: a namespace being deleted allows nothing", nss: three, allow: []string{"acme-c"}, going: []string{"acme-c"},
			attrs: `{"verb":"list","resource":"pods"}`},
		{name: "no namespaces", attrs: `{"verb":"list","resource":"pods"}`, asked: []string{}},
		{name: "namespaced: as sent", nss: three, allow: []string{"acme-a"}, attrs: `{"namespace":"a","verb":"list","resource":"pods"}`, allowed: true, asked: []string{"acme-a"}},
		{name: "cluster-scoped: as sent", nss: three, allow: []string{""}, attrs: `{"verb":"list","resource":"nodes"}`, allowed: true, asked: []string{""}},
		{name: "every resource: as sent", nss: three, allow: three, attrs: `{"verb":"list","resource":"*"}`, asked: []string{""}},
		{name: "a namespace's review fails", nss: three, allow: three, fail: "acme-b", attrs: `{"verb":"create","resource":"pods"}`, failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := &namespaceReviews{nss: tc.nss, allow: map[string]bool{}, fail: tc.fail, going: map[string]bool{}}
			for _, ns := range tc.going {
				up.going[ns] = true
			}
			for _, ns := range tc.allow {
				up.allow[ns] = true
			}
			ts := httptest.NewServer(http.HandlerFunc(up.handle))
			t.Cleanup(ts.Close)
			p, err := New(Config{Upstream: &rest.Config{Host: ts.URL}, Tenant: "acme", Token: testToken})
			require.NoError(t, err)
			rec := request(p, http.MethodPost, ssar, nil, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":`+tc.attrs+`}}`)
			if tc.failed {
				assert.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())
				assert.Contains(t, rec.Body.String(), `"kind":"Status"`)
				assert.NotContains(t, rec.Body.String(), "etcd", "not the upstream's text")
				return
			}
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			var got struct {
				Spec struct {
					ResourceAttributes map[string]any `json:"resourceAttributes"`
				} `json:"spec"`
				Status struct {
					Allowed bool   `json:"allowed"`
					Reason  string `json:"reason"`
				} `json:"status"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			assert.Equal(t, tc.allowed, got.Status.Allowed, got.Status.Reason)
			assert.Empty(t, got.Status.Reason, "no authorizer's text")
			assert.NotContains(t, rec.Body.String(), "acme-", "the tenant's names only")
			var want map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.attrs), &want))
			assert.Equal(t, want, got.Spec.ResourceAttributes, "the attributes as asked")
			if tc.asked != nil {
				assert.Equal(t, tc.asked, append([]string{}, up.asked...))
			} else {
				assert.Subset(t, tc.nss, up.asked, "the tenant's namespaces only")
			}
		})
	}
}

// TestAllNamespacesSubjectAccessReview: an admin's SubjectAccessReview of
// all namespaces is asked in each namespace with the proxy's own identity,
// about the tenant's user; a refusal of that identity does not name it.
func TestAllNamespacesSubjectAccessReview(t *testing.T) {
	const sar = `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"dev","resourceAttributes":{"verb":"list","resource":"pods"}}}`
	for _, refuse := range []bool{false, true} {
		up := &namespaceReviews{nss: []string{"acme-a", "acme-b"}, allow: map[string]bool{"acme-b": true}, refuse: refuse}
		ts := httptest.NewServer(http.HandlerFunc(up.handle))
		t.Cleanup(ts.Close)
		p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Token: testToken, Admin: true})
		require.NoError(t, err)
		rec := request(p, http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", nil, sar)
		if refuse {
			require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
			assert.NotContains(t, rec.Body.String(), "zoo-server")
			continue
		}
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		assert.JSONEq(t, `{"allowed":true}`, statusOf(t, rec.Body.Bytes()))
		assert.Contains(t, rec.Body.String(), `"user":"dev"`, "about the tenant's user, in its names")
	}
}
