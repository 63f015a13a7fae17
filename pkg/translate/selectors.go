package translate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SelectorReach says how far a label selector that a tenant writes reaches
// when the API server or one of the cluster's controllers evaluates it, and
// so what kubectl-zoo does with it.
type SelectorReach int

// The reaches of SelectorTable.
const (
	// ReachConfined selectors are evaluated over every tenant's objects
	// (every namespace, every ClusterRole): the kinds table holds a
	// TargetSelector reference for each, through which the proxy ANDs the
	// requirement TenantLabel=<tenant>, which no other expression of the
	// selector can undo; Upstream says what holds a tenant identity that
	// writes the object directly.
	ReachConfined SelectorReach = iota + 1
	// ReachOwnNamespace selectors are evaluated only over the objects of
	// the selecting object's own namespace.
	ReachOwnNamespace
	// ReachNarrowing selectors are evaluated beyond the tenant, but only
	// narrow what the tenant's own object (already confined by something
	// else) applies to or binds.
	ReachNarrowing
	// ReachShared selectors select what the shared cluster publishes for
	// everyone and no tenant writes: its machines (nodes), its trust
	// bundles.
	ReachShared
)

// String names the reach.
func (r SelectorReach) String() string {
	switch r {
	case ReachConfined:
		return "confined"
	case ReachOwnNamespace:
		return "own namespace"
	case ReachNarrowing:
		return "narrowing"
	case ReachShared:
		return "shared"
	}
	return "unknown"
}

// PodSpecSelector stands, in SelectorRule.Resource, for every kind of the
// kinds table that holds a pod spec (pods, and the templates of workloads);
// the Fields of such a rule are relative to the pod spec.
var PodSpecSelector = schema.GroupResource{Resource: "<pod spec>"}

// SelectorRule classifies one label selector field a tenant writes.
type SelectorRule struct {
	// Resource is the kind, or PodSpecSelector.
	Resource schema.GroupResource
	// Fields are the dotted paths of the selector ("[]" marks a list, "*"
	// stands for any one step), relative to the pod spec for
	// PodSpecSelector.
	Fields []string
	// Evaluator is who evaluates the selector, and over what.
	Evaluator string
	// Reach classifies it.
	Reach SelectorReach
	// Ref is, for ReachConfined, the Field of the kinds table's reference
	// that confines it (relative to the pod spec for PodSpecSelector).
	Ref string
	// Upstream says, for ReachConfined, what holds a tenant identity that
	// writes the field directly upstream; for the others, why the selector
	// cannot reach another tenant.
	Upstream string
}

// SelectorTable classifies every label selector of the kinds the tenants
// write: those of every pod spec, then each row's Selectors, the confined
// ones first (TestSelectorTable holds the table against the kinds table,
// and against every selector field of the kinds' Go types, so that a
// selector it does not classify fails the test).
var SelectorTable = selectorTable()

// selectorTable gathers podSpecSelectors and the rows' Selectors, with
// the row's resource, the confined ones first.
func selectorTable() []SelectorRule {
	var confined, rest []SelectorRule
	add := func(s SelectorRule) {
		if s.Reach == ReachConfined {
			confined = append(confined, s)
		} else {
			rest = append(rest, s)
		}
	}
	for _, s := range podSpecSelectors {
		add(s)
	}
	for i := range kindTable {
		for _, s := range kindTable[i].Selectors {
			s.Resource = kindTable[i].Resource
			add(s)
		}
	}
	return append(confined, rest...)
}

// affinityTerms are the fields key of the pod affinity terms of a pod
// spec (PodAffinityTermPaths, which the proxy's reference and the
// upstream rule walk too).
func affinityTerms(key string) []string {
	out := make([]string, 0, len(PodAffinityTermPaths))
	for _, p := range PodAffinityTermPaths {
		out = append(out, p+"."+key)
	}
	return out
}
