package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestReconfine: an upstream webhook configuration or policy written by an
// earlier version (its TenantMatchCondition with another expression, or
// none) gets the condition this version writes, and the tenant's own
// conditions stay; one that has it already is left unchanged.
func TestReconfine(t *testing.T) {
	tr := newTestTranslator(t)
	current := tr.Tenant().tenantMatchExpression()
	old := `(has(request.namespace) && request.namespace != '')`
	kinds := map[string]schema.GroupResource{}
	for _, rule := range ReconfinedKinds() {
		kinds[rule.Kind] = rule.Resource
	}
	require.Contains(t, kinds, "ValidatingWebhookConfiguration")
	require.Contains(t, kinds, "ValidatingAdmissionPolicy")
	assert.NotContains(t, kinds, "ValidatingAdmissionPolicyBinding", "bindings carry no match condition")
	cases := []struct {
		name    string
		gr      schema.GroupResource
		obj     func(expr string) map[string]any
		from    string
		changed bool
	}{
		{"webhook, old condition", kinds["ValidatingWebhookConfiguration"], webhookWith, old, true},
		{"webhook, no condition", kinds["MutatingWebhookConfiguration"], webhookWith, "", true},
		{"webhook, current condition", kinds["ValidatingWebhookConfiguration"], webhookWith, current, false},
		{"policy, old condition", kinds["ValidatingAdmissionPolicy"], policyWith, old, true},
		{"policy, current condition", kinds["ValidatingAdmissionPolicy"], policyWith, current, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj(tc.from)
			changed, err := tr.Reconfine(tc.gr, obj)
			require.NoError(t, err)
			assert.Equal(t, tc.changed, changed)
			assert.Equal(t, tc.obj(current), obj)
		})
	}
}

// webhookWith is an upstream webhook configuration of acme's whose one
// webhook has the tenant's own condition and, unless expr is "",
// TenantMatchCondition with expr.
func webhookWith(expr string) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": "acme-w", "labels": map[string]any{TenantLabel: "acme"}},
		"webhooks": []any{map[string]any{"name": "w.example.com", "matchConditions": conditionsWith(expr)}}}
}

// policyWith is webhookWith's admission policy twin.
func policyWith(expr string) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": "acme-p", "labels": map[string]any{TenantLabel: "acme"}},
		"spec": map[string]any{"matchConditions": conditionsWith(expr)}}
}

func conditionsWith(expr string) []any {
	out := []any{map[string]any{"name": "mine", "expression": "true"}}
	if expr != "" {
		out = append(out, map[string]any{"name": TenantMatchCondition, "expression": expr})
	}
	return out
}
