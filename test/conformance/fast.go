package main

import (
	"regexp"
	"strings"
)

// fastSpecs are the sig-api-machinery conformance specs `make
// test-conformance-fast` (part of `make test`) runs through the proxy: each
// passed through `kubectl zoo serve` in `make conformance`, takes seconds and
// waits on no controller timing. Together they cover discovery (also of a
// CRD being registered), watches from a resource version, resource quota,
// namespaces, field validation of typed objects and custom resources
// (repeated keys included), a CRD's status, Table output, the garbage
// collector, and the API operations of FlowSchemas, priority levels,
// ValidatingAdmissionPolicies and their bindings (which the proxy writes with
// its own identity, pkg/localproxy/confined.go).
var fastSpecs = []string{
	"[sig-api-machinery] server version should find the server version [Conformance]",
	"[sig-api-machinery] Discovery should validate PreferredVersion for each APIGroup [Conformance]",
	"[sig-api-machinery] AggregatedDiscovery should support aggregated discovery interface [Conformance]",
	"[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] should include custom resource definition resources in discovery documents [Conformance]",
	"[sig-api-machinery] Watchers should be able to start watching from a specific resource version [Conformance]",
	"[sig-api-machinery] Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance]",
	"[sig-api-machinery] ResourceQuota should be able to update and delete ResourceQuota. [Conformance]",
	"[sig-api-machinery] Namespaces [Serial] should patch a Namespace [Conformance]",
	"[sig-api-machinery] FieldValidation should detect unknown metadata fields of a typed object [Conformance]",
	"[sig-api-machinery] FieldValidation should detect unknown and duplicate fields of a typed object [Conformance]",
	"[sig-api-machinery] FieldValidation should detect duplicates in a CR when preserving unknown fields [Conformance]",
	"[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition getting/updating/patching custom resource definition status sub-resource works [Conformance]",
	"[sig-api-machinery] AggregatedDiscovery should support raw aggregated discovery request for CRDs [Conformance]",
	"[sig-api-machinery] Servers with support for Table transformation should return a 406 for a backend which does not implement metadata [Conformance]",
	"[sig-api-machinery] Garbage collector should delete RS created by deployment when not orphaning [Conformance]",
	"[sig-api-machinery] API priority and fairness should support FlowSchema API operations [Conformance]",
	"[sig-api-machinery] API priority and fairness should support PriorityLevelConfiguration API operations [Conformance]",
	"[sig-api-machinery] ValidatingAdmissionPolicy [Privileged:ClusterAdmin] should support ValidatingAdmissionPolicy API operations [Conformance]",
	"[sig-api-machinery] ValidatingAdmissionPolicy [Privileged:ClusterAdmin] should support ValidatingAdmissionPolicyBinding API operations [Conformance]",
}

// fastFocus is a ginkgo focus matching exactly fastSpecs. Ginkgo matches the
// suite's description, a space and the spec's text, so it anchors at the end
// only.
func fastFocus() string {
	quoted := make([]string, len(fastSpecs))
	for i, s := range fastSpecs {
		quoted[i] = regexp.QuoteMeta(s)
	}
	return " (?:" + strings.Join(quoted, "|") + ")$"
}
