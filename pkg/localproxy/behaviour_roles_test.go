package localproxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// roleWriteCase is an upstream answer to a write an after-behaviour reads:
// whether it makes the behaviour write (warned: here the upstream fails
// that write, and the tenant is told).
type roleWriteCase struct {
	name, method, path, answer string
	warned                     bool
}

func testRoleWrite(t *testing.T, b afterBehaviour, warning string, cases []roleWriteCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, up := newTestProxy(t, jsonHandler(http.StatusInternalServerError, upstreamFailure))
			x, w := exchangeOf(t, p, tc.method, tc.path, "{}")
			resp := answer(http.StatusOK, tc.answer)
			b.after(p, x, resp)
			assert.Equal(t, tc.answer, bodyOf(t, resp), "the answer is passed on whole")
			warnings := strings.Join(w.Header().Values("Warning"), "\n")
			if tc.warned {
				assert.Contains(t, warnings, warning)
				return
			}
			assert.Empty(t, warnings)
			assert.Zero(t, up.count(), "nothing written")
		})
	}
}

// TestBehaviourAggregation: a ClusterRole that aggregates into the
// tenant's view switches the standard roles' aggregation on; one that
// aggregates into nothing, and a dry run, do not.
func TestBehaviourAggregation(t *testing.T) {
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/widgets"
	role := func(labels string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"acme-widgets","labels":{` + labels + `}}}`
	}
	toView := role(`"` + translate.TenantAggregateLabelPrefix + `view":"true"`)
	testRoleWrite(t, aggregation{}, "this ClusterRole is not aggregated into admin, edit and view yet", []roleWriteCase{
		{name: "into view", method: http.MethodPut, path: path, answer: toView, warned: true},
		{name: "into nothing", method: http.MethodPut, path: path, answer: role(`"team":"a"`)},
		{name: "a dry run", method: http.MethodPut, path: path + "?dryRun=All", answer: toView},
	})
}

// TestBehaviourCRDServerRole: a cluster-scoped CRD of the tenant gets the
// ClusterRole that lets the server serve its objects; a namespaced one
// does not need it.
func TestBehaviourCRDServerRole(t *testing.T) {
	const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.x.example.com"
	crd := func(scope string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.acme-x.example.com","uid":"u"},` +
			`"spec":{"group":"acme-x.example.com","scope":"` + scope + `","names":{"plural":"things"},"versions":[{"name":"v1"}]}}`
	}
	testRoleWrite(t, crdServerRole{}, "kubectl-zoo's server may not serve the objects of this CRD", []roleWriteCase{
		{name: "cluster-scoped", method: http.MethodPut, path: path, answer: crd("Cluster"), warned: true},
		{name: "namespaced", method: http.MethodPut, path: path, answer: crd("Namespaced")},
	})
}
