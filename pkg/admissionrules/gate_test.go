package admissionrules

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ruleMatches reports whether r matches a create of gr named name, as the
// API server's matcher reads a rule ('*' for any group, version, resource;
// no subresource; resourceNames, when set, by name).
func ruleMatches(r admissionv1.NamedRuleWithOperations, gr schema.GroupResource, name string) bool {
	anyOf := func(list []string, s string) bool { return slices.Contains(list, "*") || slices.Contains(list, s) }
	return (slices.Contains(r.Operations, admissionv1.Create) || slices.Contains(r.Operations, admissionv1.OperationAll)) &&
		anyOf(r.APIGroups, gr.Group) && anyOf(r.Resources, gr.Resource) &&
		(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name))
}

func matchesAny(rules []admissionv1.NamedRuleWithOperations, gr schema.GroupResource, name string) bool {
	return slices.ContainsFunc(rules, func(r admissionv1.NamedRuleWithOperations) bool { return ruleMatches(r, gr, name) })
}

// TestPolicyObjectsGateJudgesEveryCreate: zoo-tenant-policy-objects gates
// the create of every namespaced kind — whatever a quota may count,
// `count/<resource>.<group>` of any group, custom resources included — and
// lets through only the objects Kubernetes makes in every namespace and,
// by its second binding, the policy's own objects labeled as such.
func TestPolicyObjectsGateJudgesEveryCreate(t *testing.T) {
	p := policyObjectsPolicy()
	m := p.Spec.MatchConstraints
	require.Len(t, m.ResourceRules, 1)
	assert.Equal(t, admissionv1.NamespacedScope, *m.ResourceRules[0].Scope, "namespaces themselves are the namespace limit's")
	bindings := policyObjectsBindings()
	require.Len(t, bindings, 2)
	gate, own := bindings[0].Spec.MatchResources, bindings[1].Spec.MatchResources
	cases := []struct {
		gr       schema.GroupResource
		name     string
		gated    bool
		byOwnKey bool // judged by the second binding (unless labeled as the policy's)
	}{
		{gr: schema.GroupResource{Resource: "configmaps"}, name: "c", gated: true},
		{gr: schema.GroupResource{Resource: "secrets"}, name: "s", gated: true},
		{gr: schema.GroupResource{Resource: "pods"}, name: "p", gated: true},
		{gr: schema.GroupResource{Resource: "services"}, name: "s", gated: true},
		{gr: schema.GroupResource{Resource: "persistentvolumeclaims"}, name: "c", gated: true},
		{gr: schema.GroupResource{Group: "apps", Resource: "deployments"}, name: "d", gated: true},
		{gr: schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}, name: "admins", gated: true},
		{gr: schema.GroupResource{Group: "acme-x.example.com", Resource: "widgets"}, name: "w", gated: true},
		{gr: schema.GroupResource{Resource: "serviceaccounts"}, name: "bot", gated: true},
		{gr: schema.GroupResource{Resource: "configmaps"}, name: "", gated: true}, // generateName
		{gr: schema.GroupResource{Resource: "serviceaccounts"}, name: "default"},
		{gr: schema.GroupResource{Resource: "configmaps"}, name: "kube-root-ca.crt"},
		{gr: schema.GroupResource{Resource: "resourcequotas"}, name: "mine", gated: true, byOwnKey: true},
		{gr: schema.GroupResource{Resource: "limitranges"}, name: platformobj.PolicyObjectName, gated: true, byOwnKey: true},
		{gr: schema.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}, name: "np", gated: true, byOwnKey: true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s", c.gr, c.name), func(t *testing.T) {
			byPolicy := matchesAny(m.ResourceRules, c.gr, c.name) && !matchesAny(m.ExcludeResourceRules, c.gr, c.name)
			assert.Equal(t, c.gated, byPolicy, "the policy's match")
			if !c.gated {
				return
			}
			assert.Equal(t, !c.byOwnKey, !matchesAny(gate.ExcludeResourceRules, c.gr, c.name), "the first binding")
			assert.Equal(t, c.byOwnKey, matchesAny(own.ResourceRules, c.gr, c.name), "the second binding")
		})
	}
	sel := own.ObjectSelector.MatchExpressions
	require.Len(t, sel, 1)
	assert.Equal(t, metav1.LabelSelectorRequirement{Key: translate.PropagatedFromLabel, Operator: metav1.LabelSelectorOpNotIn,
		Values: []string{translate.PropagatedFromPolicy}}, sel[0], "only the policy's own objects pass")
	for _, b := range bindings {
		assert.Equal(t, PolicyObjectsPolicy, b.Spec.PolicyName)
		assert.Equal(t, admissionv1.DenyAction, *b.Spec.ParamRef.ParameterNotFoundAction, "%s: no quota, no create", b.Name)
	}
	require.Len(t, p.Spec.Validations, 2)
	assert.Equal(t, quotaInForce, p.Spec.Validations[1].Expression)
}
