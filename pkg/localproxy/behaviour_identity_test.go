package localproxy

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// upstreamFailure is what a failing upstream answers.
const upstreamFailure = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500}`

// refusal is an upstream 403.
func refusal() *http.Response {
	return &http.Response{StatusCode: http.StatusForbidden, Body: io.NopCloser(strings.NewReader(
		`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","message":"User \"system:serviceaccount:zoo:server\" cannot","code":403}`))}
}

// newAdminProxy is newTestProxy for one of the tenant's admins.
func newAdminProxy(t *testing.T, handler http.HandlerFunc) *Proxy {
	t.Helper()
	p, _ := newTestProxy(t, handler)
	cfg := p.cfg
	cfg.Admin, cfg.Upstream = true, &rest.Config{Host: p.base.String(), BearerToken: "upstream-secret"}
	admin, err := New(cfg)
	require.NoError(t, err)
	return admin
}

// identityCase is one request through an identity behaviour: whether
// before answers it (and with what code), and whether it then goes with
// the proxy's own identity.
type identityCase struct {
	name         string
	admin        bool
	method, path string
	answered     int // the code before answered with; 0: it did not
	own          bool
}

func testIdentity(t *testing.T, b interface {
	beforeBehaviour
	refusalBehaviour
}, handler http.HandlerFunc, cases []identityCase, refusedSays string) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, handler)
			if tc.admin {
				p = newAdminProxy(t, handler)
			}
			x, w := exchangeOf(t, p, tc.method, tc.path, "")
			r := x.r
			require.Equal(t, tc.answered != 0, b.before(p, x))
			if tc.answered != 0 {
				assert.Equal(t, tc.answered, w.Code, w.Body.String())
				return
			}
			assert.Equal(t, tc.own, ownIdentity(x.r))
			if !tc.own {
				assert.Same(t, r, x.r, "the request is left as it was")
			}
			require.Equal(t, tc.own, b.refused(p, x, refusal()), "a refusal is answered when it was the own identity's")
			if tc.own {
				assert.Equal(t, http.StatusForbidden, w.Code)
				assert.Contains(t, w.Body.String(), refusedSays)
				assert.NotContains(t, w.Body.String(), "system:serviceaccount", "the own identity is not named")
			}
		})
	}
}

func TestBehaviourConfinedIdentity(t *testing.T) {
	const vaps = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	testIdentity(t, confinedIdentity{}, jsonHandler(http.StatusInternalServerError, upstreamFailure), []identityCase{
		{name: "a user who is no admin is refused", method: http.MethodGet, path: vaps, answered: http.StatusForbidden},
		{name: "an admin's list goes with the own identity", admin: true, method: http.MethodGet, path: vaps, own: true},
		{name: "a namespaced kind is not confined", admin: true, method: http.MethodGet, path: "/api/v1/namespaces/dev/configmaps"},
	}, "kubectl-zoo writes validatingadmissionpolicies for tenants with its own identity")
}

func TestBehaviourReviewIdentity(t *testing.T) {
	const reviews = "/apis/authentication.k8s.io/v1/tokenreviews"
	testIdentity(t, reviewIdentity{}, jsonHandler(http.StatusInternalServerError, upstreamFailure), []identityCase{
		{name: "a user who is no admin is refused", method: http.MethodPost, path: reviews, answered: http.StatusForbidden},
		{name: "an admin's review goes with the own identity", admin: true, method: http.MethodPost, path: reviews, own: true},
		{name: "a read is none of the proxy's creates", admin: true, method: http.MethodGet, path: "/api/v1/namespaces/dev/configmaps"},
	}, "kubectl-zoo creates tokenreviews for the tenant's admins")
}

func TestBehaviourTenantGroupIdentity(t *testing.T) {
	const things = "/apis/x.example.com/v1/things"
	reviews := func(allowed string, crd http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			switch {
			case strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews"):
				jsonHandler(http.StatusCreated, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","status":{"allowed":`+allowed+`}}`)(w, r)
			case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/customresourcedefinitions/things.acme-x.example.com"):
				crd(w, r)
			default:
				jsonHandler(http.StatusInternalServerError, upstreamFailure)(w, r)
			}
		}
	}
	failing := jsonHandler(http.StatusInternalServerError, upstreamFailure)
	owned := jsonHandler(http.StatusOK, `{"metadata":{"name":"things.acme-x.example.com","labels":{"`+translate.TenantLabel+`":"acme"}}}`)
	testIdentity(t, tenantGroupIdentity{}, reviews("false", owned), []identityCase{
		{name: "a user who may not use the CRD is refused", method: http.MethodGet, path: things, answered: http.StatusForbidden},
		{name: "a namespaced resource is left alone", method: http.MethodGet, path: "/apis/x.example.com/v1/namespaces/dev/things"},
	}, "")
	testIdentity(t, tenantGroupIdentity{}, reviews("true", failing), []identityCase{
		{name: "the CRD unreadable", method: http.MethodGet, path: things, answered: http.StatusServiceUnavailable},
	}, "")
	testIdentity(t, tenantGroupIdentity{}, reviews("true", owned), []identityCase{
		{name: "a user who may use the tenant's CRD goes with the own identity", method: http.MethodGet, path: things, own: true},
	}, "kubectl-zoo may not serve the objects of things.x.example.com yet")
}
