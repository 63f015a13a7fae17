package localproxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigInt is 2^53+1: the first integer a float64 cannot hold.
const bigInt = "9007199254740993"

// fakeNamespaces answers the proxy's list of the tenant's namespaces.
func fakeNamespaces(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` +
		`{"metadata":{"name":"acme-default","resourceVersion":"5"}},{"metadata":{"name":"acme-prod","resourceVersion":"6"}}]}`))
}

// TestNumbersSurviveEveryPath: no answer path turns an integer above 2^53
// into a float: the proxy must not change a value it does not translate.
func TestNumbersSurviveEveryPath(t *testing.T) {
	deployment := func(ns string) string {
		return `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"` + ns +
			`","generation":` + bigInt + `},"spec":{"progressDeadlineSeconds":` + bigInt + `,"ratio":0.1}}`
	}
	table := func(ns string) string {
		return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},` +
			`"columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Big","type":"integer"}],` +
			`"rows":[{"cells":["web",` + bigInt + `],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",` +
			`"metadata":{"name":"web","namespace":"` + ns + `","generation":` + bigInt + `}}}]}`
	}
	for _, tc := range []struct {
		name, path, accept string
		upstream           func(ns string) string
	}{
		{"get", "/apis/apps/v1/namespaces/default/deployments/web", "application/json", deployment},
		{"list in one namespace", "/apis/apps/v1/namespaces/default/deployments", "application/json", func(ns string) string {
			return `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"9"},"items":[` + deployment(ns) + `]}`
		}},
		{"list across namespaces", "/apis/apps/v1/deployments", "application/json", func(ns string) string {
			return `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"9"},"items":[` + deployment(ns) + `]}`
		}},
		{"table across namespaces", "/apis/apps/v1/deployments", "application/json;as=Table;v=v1;g=meta.k8s.io", table},
		{"table in one namespace", "/apis/apps/v1/namespaces/default/deployments", "application/json;as=Table;v=v1;g=meta.k8s.io", table},
		{"status across namespaces", "/apis/apps/v1/deployments", "application/json", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/v1/namespaces" {
					fakeNamespaces(w)
					return
				}
				ns := strings.Split(strings.TrimPrefix(r.URL.Path, "/apis/apps/v1/namespaces/"), "/")[0]
				w.Header().Set("Content-Type", "application/json")
				if tc.upstream == nil {
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,` +
						`"details":{"retryAfterSeconds":` + bigInt + `}}`))
					return
				}
				_, _ = w.Write([]byte(tc.upstream(ns)))
			})
			rec := request(p, http.MethodGet, tc.path, map[string]string{"Accept": tc.accept}, "")
			body := rec.Body.String()
			assert.Contains(t, body, bigInt, body)
			assert.NotContains(t, body, "9007199254740992", body)
			assert.NotContains(t, body, "e+15", body)
			assert.NotContains(t, body, "acme-", body)
			if tc.upstream == nil {
				require.Equal(t, http.StatusTooManyRequests, rec.Code, body)
			} else {
				require.Equal(t, http.StatusOK, rec.Code, body)
			}
		})
	}
}
