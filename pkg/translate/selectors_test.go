package translate

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSelectorTable holds SelectorTable against the kinds table: every
// selector reference of the table is classified as confined, and every
// confined selector has its reference on every kind that holds it.
func TestSelectorTable(t *testing.T) {
	confined := map[string]bool{}
	for _, s := range SelectorTable {
		t.Run(s.Resource.String()+" "+strings.Join(s.Fields, ","), func(t *testing.T) {
			assert.NotEmpty(t, s.Fields)
			assert.NotEmpty(t, s.Evaluator, "who evaluates it")
			assert.NotEmpty(t, s.Upstream, "what holds it upstream, or why it cannot reach another tenant")
			assert.NotEqual(t, "unknown", s.Reach.String())
			if s.Resource != PodSpecSelector {
				_, ok := LookupKind(s.Resource)
				assert.True(t, ok, "a kind of the kinds table")
			}
			if s.Reach == ReachConfined {
				require.NotEmpty(t, s.Ref)
				confined[s.Resource.String()+" "+s.Ref] = true
			} else {
				assert.Empty(t, s.Ref, "only confined selectors have a reference")
			}
		})
	}
	for _, rule := range Kinds() {
		specs := rule.PodSpecPaths()
		for _, ref := range rule.Refs {
			if ref.Target != TargetSelector || ref.matchCondition {
				continue
			}
			key := rule.Resource.String() + " " + ref.Field
			for _, p := range specs {
				if ref.Field == p+".affinity" {
					key = PodSpecSelector.String() + " affinity"
				}
			}
			assert.True(t, confined[key], "the selector reference %s %s is classified as confined in SelectorTable", rule.Resource, ref.Field)
		}
		for _, p := range specs {
			assert.True(t, slices.ContainsFunc(rule.Refs, func(r Ref) bool { return r.Field == p+".affinity" && r.Target == TargetSelector }),
				"%s: the pod spec at %s confines its affinity terms", rule.Resource, p)
		}
	}
}

// TestPodAffinityConfined: the namespaces and namespaceSelector of every
// pod affinity term of a pod spec select only the tenant's namespaces, in
// every form the API allows, and read back as written.
func TestPodAffinityConfined(t *testing.T) {
	tr := newTestTranslator(t)
	const req = `{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}`
	term := func(extra string) string {
		return `{"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app":"x"}}` + extra + `}`
	}
	cases := []struct{ name, tenant, upstream string }{
		{"no namespaces: the pod's own namespace", term(``), term(``)},
		{"null namespaceSelector stays null", term(`,"namespaceSelector":null`), term(`,"namespaceSelector":null`)},
		{"empty namespaceSelector: every namespace of the tenant's", term(`,"namespaceSelector":{}`),
			term(`,"namespaceSelector":{"matchExpressions":[` + req + `]}`)},
		{"namespaces are prefixed", term(`,"namespaces":["default","beta-default"]`), term(`,"namespaces":["acme-default","acme-beta-default"]`)},
		{"a namespace name in the selector", term(`,"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"prod"}}`),
			term(`,"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"acme-prod"},"matchExpressions":[` + req + `]}`)},
		{"NotIn and DoesNotExist keep the requirement", term(`,"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"NotIn","values":["a"]},{"key":"x","operator":"DoesNotExist"}]}`),
			term(`,"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"NotIn","values":["a"]},{"key":"x","operator":"DoesNotExist"},` + req + `]}`)},
	}
	for _, tc := range cases {
		for _, at := range []struct{ name, tenant, upstream string }{
			{"podAffinity required", `{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + tc.tenant + `]}}`,
				`{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + tc.upstream + `]}}`},
			{"podAntiAffinity required", `{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + tc.tenant + `]}}`,
				`{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + tc.upstream + `]}}`},
			{"podAffinity preferred", `{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` + tc.tenant + `}]}}`,
				`{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` + tc.upstream + `}]}}`},
			{"podAntiAffinity preferred", `{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` + tc.tenant + `}]}}`,
				`{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` + tc.upstream + `}]}}`},
		} {
			t.Run(tc.name+"/"+at.name, func(t *testing.T) {
				for _, kind := range []struct{ gr, wrap string }{{"pods", `{"metadata":{"namespace":"default"},"spec":{"affinity":%s}}`},
					{"deployments", `{"metadata":{"namespace":"default"},"spec":{"template":{"spec":{"affinity":%s}}}}`}} {
					group := map[string]string{"pods": "", "deployments": "apps"}[kind.gr]
					obj := jsonObj(t, fmt.Sprintf(kind.wrap, at.tenant))
					require.NoError(t, tr.ObjectToUpstream(gr(group, kind.gr), obj))
					jsonEq(t, fmt.Sprintf(strings.Replace(kind.wrap, `"default"`, `"acme-default"`, 1), at.upstream), obj)
					back := jsonObj(t, fmt.Sprintf(strings.Replace(kind.wrap, `"default"`, `"acme-default"`, 1), at.upstream))
					require.NoError(t, tr.ObjectToTenant(gr(group, kind.gr), back))
					jsonEq(t, fmt.Sprintf(kind.wrap, at.tenant), back)
				}
			})
		}
	}
	t.Run("the tenant label is refused", func(t *testing.T) {
		for _, sel := range []string{
			`{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}}`,
			`{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"NotIn","values":["acme"]}]}`,
			`{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"DoesNotExist"}]}`,
		} {
			obj := jsonObj(t, `{"metadata":{"namespace":"default"},"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[`+
				term(`,"namespaceSelector":`+sel)+`]}}}}`)
			err := tr.ObjectToUpstream(gr("", "pods"), obj)
			require.Error(t, err, sel)
			assert.Equal(t, int32(http.StatusForbidden), ToStatus(err).Code, sel)
			assert.Contains(t, ToStatus(err).Message, TenantLabel, sel)
		}
	})
	t.Run("a namespace of another tenant is left out on the way out", func(t *testing.T) {
		obj := jsonObj(t, `{"metadata":{"namespace":"acme-default"},"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[`+
			term(`,"namespaces":["acme-a","beta-default","kube-system"]`)+`]}}}}`)
		require.NoError(t, tr.ObjectToTenant(gr("", "pods"), obj))
		jsonEq(t, `{"metadata":{"namespace":"default"},"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[`+
			term(`,"namespaces":["a"]`)+`]}}}}`, obj)
	})
}
