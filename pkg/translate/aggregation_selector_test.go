package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAggregationSelectorForms: every ClusterRole aggregation selector a
// tenant writes selects only roles labeled for the tenant, whatever its
// form, and reads back as written; upstream selectors without that
// requirement are left out of the tenant's view.
func TestAggregationSelectorForms(t *testing.T) {
	tr := newTestTranslator(t)
	const own = `"zoo.kubectl-zoo.io/tenant":"acme"`
	role := func(sels string) string {
		return `{"metadata":{"name":"r"},"aggregationRule":{"clusterRoleSelectors":[` + sels + `]}}`
	}
	upRole := func(sels string) string {
		return `{"metadata":{"name":"acme-r","labels":{` + own + `}},"aggregationRule":{"clusterRoleSelectors":[` + sels + `]}}`
	}
	cases := []struct{ name, tenant, upstream, back string }{
		{"empty selector", `{}`, `{"matchLabels":{` + own + `}}`, `{}`},
		{"null selector", `null`, `{"matchLabels":{` + own + `}}`, `{}`},
		{"null matchLabels", `{"matchLabels":null,"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-admin","operator":"DoesNotExist"}]}`,
			`{"matchLabels":{` + own + `},"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-admin","operator":"DoesNotExist"}]}`,
			`{"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-admin","operator":"DoesNotExist"}]}`},
		{"NotIn on an aggregation key", `{"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-edit","operator":"NotIn","values":["true"]}]}`,
			`{"matchLabels":{` + own + `},"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-edit","operator":"NotIn","values":["true"]}]}`, ""},
		{"In on an aggregation key and a label", `{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-view","operator":"In","values":["true"]}]}`,
			`{"matchLabels":{"a":"b",` + own + `},"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-view","operator":"In","values":["true"]}]}`, ""},
		{"several selectors", `{"matchLabels":{"a":"b"}},{"matchExpressions":[{"key":"c","operator":"Exists"}]}`,
			`{"matchLabels":{"a":"b",` + own + `}},{"matchLabels":{` + own + `},"matchExpressions":[{"key":"c","operator":"Exists"}]}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, role(tc.tenant))
			require.NoError(t, tr.ObjectToUpstream(grClusterRole, obj))
			jsonEq(t, upRole(tc.upstream), obj)
			back := jsonObj(t, upRole(tc.upstream))
			require.NoError(t, tr.ObjectToTenant(grClusterRole, back))
			want := tc.back
			if want == "" {
				want = tc.tenant
			}
			jsonEq(t, role(want), back)
		})
	}
	t.Run("the tenant label is refused in every form", func(t *testing.T) {
		for _, sel := range []string{
			`{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"acme"}}`,
			`{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["beta"]}]}`,
			`{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"NotIn","values":["acme"]}]}`,
			`{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"Exists"}]}`,
			`{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"DoesNotExist"}]}`,
			`{"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-admin","operator":"Exists"}]}`,
		} {
			err := tr.ObjectToUpstream(grClusterRole, jsonObj(t, role(sel)))
			require.Error(t, err, sel)
			assert.Equal(t, int32(http.StatusForbidden), ToStatus(err).Code, sel)
		}
	})
	t.Run("upstream selectors not confined to the tenant are left out", func(t *testing.T) {
		obj := jsonObj(t, upRole(`{},{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}},{"matchExpressions":[{"key":"x","operator":"Exists"}]},`+
			`{"matchLabels":{"x":"y"},"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]},{"matchLabels":{"y":"z",`+own+`}}`))
		require.NoError(t, tr.ObjectToTenant(grClusterRole, obj))
		jsonEq(t, role(`{"matchLabels":{"x":"y"}},{"matchLabels":{"y":"z"}}`), obj)
	})
}
