package verify

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestConfinedTo: a selector is confined to a tenant only by the tenant
// label's requirement of exactly that tenant.
func TestConfinedTo(t *testing.T) {
	acme := translate.MustTenant("acme")
	expr := func(op string, values ...any) map[string]any {
		return map[string]any{"matchExpressions": []any{map[string]any{"key": translate.TenantLabel, "operator": op, "values": values}}}
	}
	for _, tc := range []struct {
		name string
		sel  map[string]any
		want bool
	}{
		{"every namespace", map[string]any{}, false},
		{"nil", nil, false},
		{"matchLabels", map[string]any{"matchLabels": map[string]any{translate.TenantLabel: "acme"}}, true},
		{"matchLabels of another", map[string]any{"matchLabels": map[string]any{translate.TenantLabel: "beta"}}, false},
		{"In acme", expr("In", "acme"), true},
		{"In acme and beta", expr("In", "acme", "beta"), false},
		{"NotIn acme", expr("NotIn", "acme"), false},
		{"another key", map[string]any{"matchExpressions": []any{map[string]any{"key": "x", "operator": "In", "values": []any{"acme"}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, confinedTo(tc.sel, acme)) })
	}
}
