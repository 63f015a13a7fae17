package translate

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ReconfinedKinds are the rows of the kinds table whose upstream objects
// carry TenantMatchCondition (a tenant's webhook configurations and
// admission policies): what an upgrade re-confines with Reconfine.
func ReconfinedKinds() []*KindRule {
	var out []*KindRule
	for _, rule := range Kinds() {
		for _, ref := range rule.Refs {
			if ref.matchCondition {
				out = append(out, rule)
				break
			}
		}
	}
	return out
}

// Reconfine rewrites, in place, the TenantMatchCondition of an upstream
// object of the tenant's resource gr (one of ReconfinedKinds) to the one
// this version writes, and reports whether that changed the object. The
// proxy writes the condition only when the tenant writes the object, so
// objects written by an earlier version keep its condition until then; an
// upgrade calls this for every tenant's object instead.
func (t *Translator) Reconfine(gr schema.GroupResource, obj map[string]any) (bool, error) {
	rule := t.Rule(gr, false)
	before := runtime.DeepCopyJSON(obj)
	for _, ref := range rule.Refs {
		if !ref.matchCondition {
			continue
		}
		if err := ref.apply(t.toTen, obj); err != nil { // strips it
			return false, err
		}
		if err := ref.apply(t.toUp, obj); err != nil { // adds the current one
			return false, err
		}
	}
	return !reflect.DeepEqual(before, obj), nil
}
