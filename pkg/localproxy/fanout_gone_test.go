package localproxy

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFanOutSkipsANamespaceBeingDeleted: in a namespace being deleted the
// namespace controller removes the tenant's RoleBindings first; a refusal
// there is an empty leg of an all-namespaces list, while a refusal in a
// namespace that is not going is left out too, with a warning naming it
// (fanout_forbidden.go), unless every namespace refuses.
func TestFanOutSkipsANamespaceBeingDeleted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deleting  bool
		refuseAll bool
		code      int
		warning   string
	}{
		{"being deleted", true, false, http.StatusOK, ""},
		{"not being deleted", false, false, http.StatusOK,
			`299 - "the list leaves out the namespaces where you may not list configmaps: going"`},
		{"refused everywhere", false, true, http.StatusForbidden, ""},
		// A namespace being deleted is no namespace the identity may read.
		{"refused everywhere but in a namespace being deleted", true, true, http.StatusForbidden, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				own := r.Header.Get("Impersonate-User") == ""
				switch {
				case own && r.URL.Path == "/api/v1/namespaces":
					fmt.Fprint(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[`+
						`{"metadata":{"name":"acme-a"}},{"metadata":{"name":"acme-going"}},{"metadata":{"name":"acme-z"}}]}`)
				case own && r.URL.Path == "/api/v1/namespaces/acme-going":
					deletion := ""
					if tc.deleting {
						deletion = `,"deletionTimestamp":"2026-11-24T00:00:00Z"`
					}
					fmt.Fprintf(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"acme-going"%s}}`, deletion)
				case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/acme-going/") || tc.refuseAll:
					w.WriteHeader(http.StatusForbidden)
					fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,`+
						`"message":"configmaps is forbidden: User \"zoo:acme:admin\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"acme-going\""}`)
				default:
					ns := strings.Split(r.URL.Path, "/")[4]
					fmt.Fprintf(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"cm","namespace":%q}}]}`, ns)
				}
			})
			rec := request(p, "GET", "/api/v1/configmaps", nil, "")
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Equal(t, tc.warning, rec.Header().Get("Warning"))
			if tc.code == http.StatusOK {
				assert.Contains(t, rec.Body.String(), `"namespace":"a"`)
				assert.Contains(t, rec.Body.String(), `"namespace":"z"`)
				assert.NotContains(t, rec.Body.String(), "going")
			} else {
				assert.Contains(t, rec.Body.String(), `in the namespace \"going\"`)
			}
		})
	}
}
