package localproxy

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestBehaviourAPIAccessFirst: a pod create publishes its namespace's API
// access first; when that is refused, so is the create, with the
// upstream's code; without API access configured nothing is done.
func TestBehaviourAPIAccessFirst(t *testing.T) {
	const pod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	for _, tc := range []struct {
		name       string
		configured bool
		refuse     bool
		answered   int
	}{
		{name: "not configured"},
		{name: "published", configured: true},
		{name: "refused", configured: true, refuse: true, answered: http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, recordOnly)
			client := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme-dev",
				Labels: map[string]string{translate.TenantLabel: "acme"}}})
			if tc.refuse {
				client.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, translate.APIAccessName, &quotaError{})
				})
			}
			if tc.configured {
				a, err := NewAPIAccess(client, "zoo-server.zoo-system.svc:443", func() []byte { return []byte("ca") })
				require.NoError(t, err)
				p.cfg.APIAccess = a
			}
			x, w := exchangeOf(t, p, http.MethodPost, "/api/v1/namespaces/dev/pods", pod)
			require.Equal(t, tc.answered != 0, apiAccessFirst{}.before(p, x))
			if tc.answered != 0 {
				assert.Equal(t, tc.answered, w.Code)
				return
			}
			_, err := client.CoreV1().ConfigMaps("acme-dev").Get(context.Background(), translate.APIAccessName, metav1.GetOptions{})
			assert.Equal(t, tc.configured, err == nil, "published: %v", err)
		})
	}
}

// TestBehaviourWakeSleeping: a write that may run pods wakes a sleeping
// tenant first, and is answered 503 when it could not; with the tenant's
// own credential nothing is woken.
func TestBehaviourWakeSleeping(t *testing.T) {
	asleep := func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tenants/acme") {
			jsonHandler(http.StatusOK, `{"metadata":{"name":"acme"},"status":{"sleep":{"state":"Asleep"}}}`)(w, r)
			return
		}
		jsonHandler(http.StatusInternalServerError, upstreamFailure)(w, r)
	}
	const deployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	p, _ := newTestProxy(t, asleep)
	x, w := exchangeOf(t, p, http.MethodPost, "/apis/apps/v1/namespaces/dev/deployments", deployment)
	require.True(t, wakeSleeping{}.before(p, x))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Contains(t, w.Body.String(), "tenant acme is asleep and could not be woken")

	x, _ = exchangeOf(t, p, http.MethodGet, "/apis/apps/v1/namespaces/dev/deployments/d", "")
	assert.False(t, wakeSleeping{}.before(p, x), "a read wakes no one")
	p.cfg.Direct = true
	x, _ = exchangeOf(t, p, http.MethodPost, "/apis/apps/v1/namespaces/dev/deployments", deployment)
	assert.False(t, wakeSleeping{}.before(p, x), "no identity to wake with")
}

// TestBehaviourTenantPolicies: a namespace write is wrapped (its policy
// hooks run once the upstream answers) and holds the tenant's lock until
// it is served; a read is left alone.
func TestBehaviourTenantPolicies(t *testing.T) {
	p, _ := newTestProxy(t, recordOnly)
	x, _ := exchangeOf(t, p, http.MethodGet, "/api/v1/namespaces/dev/configmaps/x", "")
	require.False(t, tenantPolicies{}.before(p, x))
	assert.Same(t, &x.rec, x.w)

	x, _ = exchangeOf(t, p, http.MethodDelete, "/api/v1/namespaces/dev", "")
	require.False(t, tenantPolicies{}.before(p, x))
	assert.IsType(t, &policyWriter{}, x.w)
	require.NotNil(t, x.done)
	x.release()
	LockTenant("acme")() // the lock was released: this does not block
}

// TestBehaviourAllNamespacesReviews: an access review of all namespaces is
// answered from the tenant's namespaces (here unreadable: the answer says
// so), one of a namespace or of another plan is forwarded.
func TestBehaviourAllNamespacesReviews(t *testing.T) {
	review := func(ns string) string {
		return `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"list","resource":"pods"` + ns + `}}}`
	}
	const path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	p, _ := newTestProxy(t, recordOnly)
	x, _ := exchangeOf(t, p, http.MethodPost, path, review(`,"namespace":"dev"`))
	assert.False(t, allNamespacesReviews{}.before(p, x), "a namespace's")
	x, _ = exchangeOf(t, p, http.MethodPost, path, review(""))
	x.u.Plan = translate.PlanFanOut
	assert.False(t, allNamespacesReviews{}.before(p, x), "another plan")
	x, w := exchangeOf(t, p, http.MethodPost, path, review(""))
	require.True(t, allNamespacesReviews{}.before(p, x))
	assert.GreaterOrEqual(t, w.Code, http.StatusInternalServerError, w.Body.String())
}
