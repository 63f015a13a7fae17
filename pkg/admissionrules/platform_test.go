package admissionrules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestMetadataPolicyFollowsTheTable: every judged row of the table of
// platform-owned metadata reaches the CEL of zoo-tenant-metadata and its
// resource rules, and the rows the API server keeps do not.
func TestMetadataPolicyFollowsTheTable(t *testing.T) {
	p := metadataPolicy(nil)
	raw, err := yaml.Marshal(p)
	require.NoError(t, err)
	for _, row := range translate.PlatformMetadata() {
		t.Run(row.Key, func(t *testing.T) {
			assert.NotContains(t, row.Key, "'", "keys are quoted into CEL as they are")
			if row.APIServer {
				// Not among the judged rows; the domain rule names it only
				// to leave it out (TestMetadataPolicyCEL evaluates both).
				assert.NotContains(t, rowsCEL(row.Annotation, func(translate.PlatformKey) string { return "" }), "'"+row.Key+"'")
				assert.Contains(t, platformKeyCEL(row.Annotation), "!(variables.res == '"+row.Resource.Group+"/"+row.Resource.Resource+"' && k == '"+row.Key+"')")
				return
			}
			assert.Contains(t, platformKeyCEL(row.Annotation), "'"+row.Key+"'")
			if row.Allowed != "" {
				assert.Contains(t, allowedCEL(row.Annotation, "m"), "k == '"+row.Key+"' && m[k] == '"+row.Allowed+"'")
				assert.Contains(t, removableCEL(row.Annotation), "k == '"+row.Key+"'")
			} else {
				assert.NotContains(t, allowedCEL(row.Annotation, "m"), "'"+row.Key+"'")
				assert.NotContains(t, removableCEL(row.Annotation), "'"+row.Key+"'")
			}
			found := false
			for _, r := range p.Spec.MatchConstraints.ResourceRules {
				if r.APIGroups[0] == row.Resource.Group && strings.Contains(strings.Join(r.Resources, ","), row.Resource.Resource) {
					found = true
				}
			}
			assert.True(t, found, "no resource rule for %s", row.Resource)
		})
	}
	assert.Contains(t, platformKeyCEL(false), "k != '"+translate.TenantLabel+"'", "the ownership label has its own rules")
	assert.NotRegexp(t, `\$[A-Z]+`, string(raw))
	vars := map[string]string{}
	for _, v := range p.Spec.Variables {
		vars[v.Name] = v.Expression
	}
	assert.Contains(t, vars["psFloor"], "group('"+translate.APIGroup+"').resource('"+PodSecurityLevelResource+"').namespace(variables.tenant + '-kube-system')")
	assert.LessOrEqual(t, strings.Count(vars["psFloor"], "authorizer."), 2,
		"CEL's cost budget of one expression allows two authorization checks (a third failed every label write of a restricted tenant)")
	assert.Equal(t, "{'privileged': 0, 'baseline': 1, 'restricted': 2}", vars["psRank"], "loosest first, as translate.PodSecurityRank")
	assert.Contains(t, vars["badLabels"], "variables.psRank[variables.labels[k]] >= variables.psFloor", "a stricter level is no platform key change")
	for _, v := range p.Spec.Validations {
		assert.True(t, strings.HasPrefix(v.Expression, "!variables.judged || "), "every rule holds for judged requests only: %s", v.Expression)
	}
}

func TestPriorityPolicy(t *testing.T) {
	p := priorityPolicy()
	require.NotNil(t, p.Spec.MatchConstraints.NamespaceSelector)
	assert.Equal(t, translate.TenantLabel, p.Spec.MatchConstraints.NamespaceSelector.MatchExpressions[0].Key,
		"pods are judged by their namespace, so also those that controllers create")
	raw, err := yaml.Marshal(p)
	require.NoError(t, err)
	assert.Contains(t, string(raw), "object.spec.priority <= 0")
	assert.Contains(t, string(raw), translate.PriorityClassesAnnotation)
	assert.Contains(t, string(raw), "object.preemptionPolicy == 'Never'")
	assert.NotContains(t, string(raw), "variables.judged", "the pods of controllers carry no tenant identity")
	assert.Contains(t, string(raw), "resource('"+PriorityClassResource+"').namespace(namespaceObject.metadata.labels['"+translate.TenantLabel+"'] + '-kube-system').name(object.spec.priorityClassName).check('use')",
		"the tenant's policy grants classes, the tenant named by the namespace's label")
	assert.Equal(t, 1, strings.Count(string(raw), "authorizer."), "one authorization check per pod of positive priority")
}
