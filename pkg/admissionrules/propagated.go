package admissionrules

import (
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PolicyObjectsPolicy is the ValidatingAdmissionPolicy (and its first
// binding) that admits a create in a tenant namespace only once the
// namespace's policy ResourceQuota exists: a namespace a tenant makes
// directly upstream holds nothing its tenant's quota could count until the
// reconcile makes that ResourceQuota (gate.go).
const PolicyObjectsPolicy = "zoo-tenant-policy-objects"

// propagatedValidations keep the objects kubectl-zoo propagates into a
// tenant's namespaces (translate.PropagatedFromLabel: the policy objects,
// and copies of objects the tenant marked) out of the tenant's hands: for a
// judged request (a tenant identity, a tenant's ServiceAccount), no object
// may carry the label before or after the write. So a tenant can neither
// create, change, patch or delete one, nor add the label to its own object
// (to pass it off as the platform's) or remove it from one.
//
// The second rule reserves the name of the policy objects: a tenant may not
// create a ResourceQuota, LimitRange or NetworkPolicy named
// PolicyObjectName. Such an object, unlabeled, in the way of the policy's
// is deleted and the policy's applied in its place; were the tenant to make
// it again in between, the apply (server-side, forced) would merge into it
// and keep the fields the policy's does not set — a quota scope that
// exempts every pod, a pod selector that selects none — under the labels
// that make it the policy's, for good.
func propagatedValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	label := quote(translate.PropagatedFromLabel)
	name := quote(platformobj.PolicyObjectName)
	return []admissionv1.Validation{{
		Expression: "!(" + label + " in variables.labels) && !(" + label + " in variables.oldLabels)",
		MessageExpression: "'objects labeled " + translate.PropagatedFromLabel + " are propagated by kubectl-zoo (from the tenant\\'s policy, or copies of objects marked for propagation): tenant ' + " +
			"variables.tenant + ' may read them, not create, change or delete them, nor add or remove the label'",
		Reason: forbidden,
	}, {
		Expression: "request.operation != 'CREATE' || variables.subres != '' || " +
			"!((variables.reqGroup + '/' + request.resource.resource) in " + celList(policyObjectPaths()) + ") || " +
			"(object != null && has(object.metadata.name) ? object.metadata.name : variables.reqName) != " + name,
		MessageExpression: "request.resource.resource + ' named " + platformobj.PolicyObjectName + " are made by kubectl-zoo from the policy of tenant ' + variables.tenant + '; the name is reserved'",
		Reason:            forbidden,
	}, {
		Expression: "variables.reqGroup != '' || request.resource.resource != '" + translate.ResourceOf("", "ResourceQuota") + "' || variables.subres != '' || object == null || " +
			"!has(object.spec) || !has(object.spec.hard) || !object.spec.hard.exists(k, k in " + celList(policyCountedResources) + ")",
		MessageExpression: "'a ResourceQuota of tenant ' + variables.tenant + ' may not limit " + strings.Join(policyCountedResources, ", ") +
			": kubectl-zoo makes the policy\\'s ResourceQuota, LimitRange and NetworkPolicy in every namespace of the tenant, and quota admission would refuse them'",
		Reason: forbidden,
	}}
}

// policyCountedResources are the quota names that count the LimitRange and
// NetworkPolicy of the policy. A tenant's own ResourceQuota that limits one
// of them (to 0, say, in a namespace it has just made directly upstream,
// before the reconcile) would make quota admission refuse kubectl-zoo's
// objects there: no NetworkPolicy, so no isolation and no fence around the
// cloud metadata endpoint. A quota of resourcequotas stays the tenant's
// (Kubernetes' conformance tests set one): refusing the policy's
// ResourceQuota leaves the namespace gated (zoo-tenant-policy-objects), and
// the other namespaces are reconciled regardless (applyBounded).
var policyCountedResources = []string{"count/limitranges", "count/networkpolicies.networking.k8s.io"}

// celList is the CEL list of the strings of items.
func celList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = quote(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// policyObjectPaths are the policy objects as "<group>/<resource>".
func policyObjectPaths() []string {
	var out []string
	for _, gr := range translate.PolicyObjectResources() {
		out = append(out, gr.Group+"/"+gr.Resource)
	}
	return out
}
