package cmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestExplainResolveType checks that every kubectl name of every row of the
// kinds table resolves to that row without a cluster.
func TestExplainResolveType(t *testing.T) {
	for short, want := range map[string]schema.GroupResource{"po": gr("", "pods"), "ev": gr("", "events"),
		"deploy": gr("apps", "deployments"), "crds": gr("apiextensions.k8s.io", "customresourcedefinitions")} {
		t.Run(short, func(t *testing.T) {
			rt, err := resolveType(short, false)
			require.NoError(t, err)
			assert.Equal(t, want, rt.Resource)
		})
	}
	for _, rule := range translate.Kinds() {
		for _, short := range rule.ShortNames {
			t.Run(short, func(t *testing.T) {
				rt, err := resolveType(short, false)
				require.NoError(t, err)
				assert.Equal(t, rule.Resource.Resource, rt.Resource.Resource)
			})
		}
	}
	for _, rule := range translate.Kinds() {
		full := rule.Resource.Resource
		if rule.Resource.Group != "" {
			full += "." + rule.Resource.Group
		}
		for _, name := range []string{full, strings.TrimSuffix(rule.Kind+"."+rule.Resource.Group, ".")} {
			t.Run(name, func(t *testing.T) {
				rt, err := resolveType(name, false)
				require.NoError(t, err)
				assert.Same(t, rule, rt.Rule)
				assert.Equal(t, rule.Treatment == translate.Namespaced, rt.Namespaced)
			})
		}
	}
	tests := []struct {
		typ           string
		clusterScoped bool
		want          resolvedType
	}{
		{typ: "Namespace", want: fromRule(mustRule(t, "", "namespaces"))},
		{typ: "events", want: fromRule(mustRule(t, "", "events"))},
		{typ: "deployments.v1.apps", want: fromRule(mustRule(t, "apps", "deployments"))},
		{typ: "crontabs.stable.example.com", want: resolvedType{Resource: gr("stable.example.com", "crontabs"), Namespaced: true, Assumed: true}},
		{typ: "crontabs.stable.example.com", clusterScoped: true, want: resolvedType{Resource: gr("stable.example.com", "crontabs"), Assumed: true}},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			got, err := resolveType(tc.typ, tc.clusterScoped)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func mustRule(t *testing.T, group, resource string) *translate.KindRule {
	t.Helper()
	rule, ok := translate.LookupKind(gr(group, resource))
	require.True(t, ok, "%s.%s is not in the kinds table", resource, group)
	return rule
}

func gr(group, resource string) schema.GroupResource {
	return schema.GroupResource{Group: group, Resource: resource}
}
