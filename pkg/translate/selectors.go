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
// write (TestSelectorTable holds the table against the kinds table, and
// against every selector field of the kinds' Go types, so that a selector
// it does not classify fails the test).
var SelectorTable = append(confinedSelectors, localSelectors...)

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

var confinedSelectors = []SelectorRule{
	{Resource: grClusterRole, Fields: []string{"aggregationRule.clusterRoleSelectors[]"}, Ref: "aggregationRule.clusterRoleSelectors",
		Evaluator: "the clusterrole-aggregation controller, over every ClusterRole of the cluster", Reach: ReachConfined,
		Upstream: "zoo-tenant rule 5: every selector holds matchLabels " + TenantLabel + "=<tenant>"},
	{Resource: PodSpecSelector, Fields: affinityTerms("namespaceSelector"), Ref: "affinity",
		Evaluator: "the scheduler, over the pods of every namespace (and an existing pod's anti-affinity over every incoming pod); the terms' namespaces too",
		Reach:     ReachConfined, Upstream: "zoo-tenant: every pod affinity term's namespaces start with <tenant>- and its namespaceSelector holds the tenant requirement"},
	{Resource: grNetworkPolicy, Fields: []string{"spec.ingress[].from[].namespaceSelector"}, Ref: "spec.ingress[].from[].namespaceSelector",
		Evaluator: "the network plugin, over every namespace", Reach: ReachConfined, Upstream: ownTraffic},
	{Resource: grNetworkPolicy, Fields: []string{"spec.egress[].to[].namespaceSelector"}, Ref: "spec.egress[].to[].namespaceSelector",
		Evaluator: "the network plugin, over every namespace", Reach: ReachConfined, Upstream: ownTraffic},
	{Resource: grValidatingWebhooks, Fields: []string{"webhooks[].namespaceSelector"}, Ref: "webhooks[].namespaceSelector",
		Evaluator: everyRequest, Reach: ReachConfined, Upstream: proxyWrites},
	{Resource: grMutatingWebhooks, Fields: []string{"webhooks[].namespaceSelector"}, Ref: "webhooks[].namespaceSelector",
		Evaluator: everyRequest, Reach: ReachConfined, Upstream: proxyWrites},
	{Resource: grVAP, Fields: []string{"spec.matchConstraints.namespaceSelector"}, Ref: "spec.matchConstraints.namespaceSelector",
		Evaluator: everyRequest, Reach: ReachConfined, Upstream: proxyWrites},
	{Resource: grMAP, Fields: []string{"spec.matchConstraints.namespaceSelector"}, Ref: "spec.matchConstraints.namespaceSelector",
		Evaluator: everyRequest, Reach: ReachConfined, Upstream: proxyWrites},
	{Resource: grVAPB, Fields: []string{"spec.matchResources.namespaceSelector"}, Ref: "spec.matchResources.namespaceSelector",
		Evaluator: everyRequest, Reach: ReachConfined, Upstream: proxyWrites},
	{Resource: grMAPB, Fields: []string{"spec.matchResources.namespaceSelector"}, Ref: "spec.matchResources.namespaceSelector",
		Evaluator: everyRequest, Reach: ReachConfined, Upstream: proxyWrites},
}

const (
	ownTraffic   = "harmless: a NetworkPolicy opens or limits only the traffic of its own namespace's pods"
	everyRequest = "the API server, over every namespaced request"
	proxyWrites  = "no tenant identity may write admission configuration (the proxy writes it, AccessProxy)"
)
