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
	// ReachShared selectors select the shared cluster's machines (nodes),
	// which every tenant may read and schedule onto.
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
		return "shared machines"
	}
	return "unknown"
}

// PodSpecSelector stands, in SelectorRule.Resource, for every kind of the
// kinds table that holds a pod spec (pods, and the templates of workloads);
// the Field of such a rule is relative to the pod spec.
var PodSpecSelector = schema.GroupResource{Resource: "<pod spec>"}

// SelectorRule classifies one label selector field a tenant writes.
type SelectorRule struct {
	// Resource is the kind, or PodSpecSelector.
	Resource schema.GroupResource
	// Field is the dotted path of the selector ("[]" marks a list).
	Field string
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
// write: what is not in it is not a label selector a tenant can set
// (TestSelectorTable holds the table against the kinds table).
var SelectorTable = append(confinedSelectors, localSelectors...)

var confinedSelectors = []SelectorRule{
	{Resource: grClusterRole, Field: "aggregationRule.clusterRoleSelectors[]", Ref: "aggregationRule.clusterRoleSelectors",
		Evaluator: "the clusterrole-aggregation controller, over every ClusterRole of the cluster", Reach: ReachConfined,
		Upstream: "zoo-tenant rule 5: every selector holds matchLabels " + TenantLabel + "=<tenant>"},
	{Resource: PodSpecSelector, Field: "affinity.podAffinity.*.namespaceSelector, .namespaces", Ref: "affinity",
		Evaluator: "the scheduler, over the pods of every namespace (and an existing pod's anti-affinity over every incoming pod)",
		Reach:     ReachConfined, Upstream: "zoo-tenant: every pod affinity term's namespaces start with <tenant>- and its namespaceSelector holds the tenant requirement"},
	{Resource: PodSpecSelector, Field: "affinity.podAntiAffinity.*.namespaceSelector, .namespaces", Ref: "affinity",
		Evaluator: "the scheduler, as for podAffinity", Reach: ReachConfined, Upstream: "zoo-tenant, as for podAffinity"},
	{Resource: gr("networking.k8s.io", "networkpolicies"), Field: "spec.ingress[].from[].namespaceSelector", Ref: "spec.ingress[].from[].namespaceSelector",
		Evaluator: "the network plugin, over every namespace", Reach: ReachConfined,
		Upstream: "harmless: a NetworkPolicy opens or limits only the traffic of its own namespace's pods"},
	{Resource: gr("networking.k8s.io", "networkpolicies"), Field: "spec.egress[].to[].namespaceSelector", Ref: "spec.egress[].to[].namespaceSelector",
		Evaluator: "the network plugin, over every namespace", Reach: ReachConfined,
		Upstream: "harmless: a NetworkPolicy opens or limits only the traffic of its own namespace's pods"},
	{Resource: gr(admissionGroup, "validatingwebhookconfigurations"), Field: "webhooks[].namespaceSelector", Ref: "webhooks[].namespaceSelector",
		Evaluator: "the API server, over every namespaced request", Reach: ReachConfined, Upstream: "no tenant identity may write webhook configurations (the proxy writes them)"},
	{Resource: gr(admissionGroup, "mutatingwebhookconfigurations"), Field: "webhooks[].namespaceSelector", Ref: "webhooks[].namespaceSelector",
		Evaluator: "the API server, over every namespaced request", Reach: ReachConfined, Upstream: "no tenant identity may write webhook configurations (the proxy writes them)"},
	{Resource: grVAP, Field: "spec.matchConstraints.namespaceSelector", Ref: "spec.matchConstraints.namespaceSelector",
		Evaluator: "the API server, over every namespaced request", Reach: ReachConfined, Upstream: "no tenant identity may write admission policies (the proxy writes them)"},
	{Resource: grMAP, Field: "spec.matchConstraints.namespaceSelector", Ref: "spec.matchConstraints.namespaceSelector",
		Evaluator: "the API server, over every namespaced request", Reach: ReachConfined, Upstream: "no tenant identity may write admission policies"},
	{Resource: gr(admissionGroup, "validatingadmissionpolicybindings"), Field: "spec.matchResources.namespaceSelector", Ref: "spec.matchResources.namespaceSelector",
		Evaluator: "the API server, over every namespaced request", Reach: ReachConfined, Upstream: "no tenant identity may write admission policies (the proxy writes them)"},
	{Resource: gr(admissionGroup, "mutatingadmissionpolicybindings"), Field: "spec.matchResources.namespaceSelector", Ref: "spec.matchResources.namespaceSelector",
		Evaluator: "the API server, over every namespaced request", Reach: ReachConfined, Upstream: "no tenant identity may write admission policies"},
}
