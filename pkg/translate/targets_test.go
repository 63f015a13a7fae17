package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTargets: every target is named and explained, and a field is refused
// exactly when its target is one nothing of the tenant's can stand for.
func TestTargets(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range Targets() {
		assert.NotEqual(t, "unknown", tg.String())
		assert.NotEqual(t, "unknown", tg.Confined())
		assert.False(t, seen[tg.String()], "two targets named %q", tg)
		seen[tg.String()] = true
		assert.True(t, !tg.Refused() || tg.NamesOutside(), "a refused target names something outside")
	}
	assert.Equal(t, "unknown", Target(0).String())
	assert.Panics(t, func() { refusedField(TargetNamespace, grPV, "spec", "x", "") })
	for _, r := range Kinds() {
		for _, ref := range r.Refs {
			assert.Equal(t, ref.Target.Refused(), contains(r.RefusedFields(), ref.Field), "%s %s", r.Resource, ref.Field)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
