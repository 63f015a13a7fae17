package verify

import (
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// neverSelector selects no object: what verify's webhooks and admission
// policies match, so that none of them is ever called.
func neverSelector() map[string]any {
	return map[string]any{"matchLabels": map[string]any{"zoo-verify.example.com/never": "x"}}
}

// configMapRule is an admission rule over ConfigMaps (only the
// attacker's, by neverSelector none).
func configMapRule() map[string]any {
	return map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"},
		"resources": []any{translate.ResourceOf("", "ConfigMap")}}
}

// matchedNothing are the match resources of verify's admission policies and
// bindings: ConfigMaps but none of them (neverSelector), excluding one
// name.
func matchedNothing() map[string]any {
	exclude := configMapRule()
	exclude["resourceNames"] = []any{"zoo-verify-none"}
	return map[string]any{"resourceRules": []any{configMapRule()}, "excludeResourceRules": []any{exclude}, "objectSelector": neverSelector()}
}

// admissionBases are the harmless objects of the admission and flow
// control kinds a tenant writes through the proxy (tenant identities hold
// no right on them upstream): webhook configurations that are never called
// (webhookConfiguration), an admission policy that matches no object and
// allows everything, a binding of the attacker's own policy that matches no
// object, and a FlowSchema at the tenants' lowest precedence for a
// resource that does not exist, of the attacker's own priority level.
var admissionBases = map[schema.GroupKind]outsideBase{
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: func(t *Target, name string) *unstructured.Unstructured {
		return webhookConfiguration(t, "ValidatingWebhookConfiguration", name)
	},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}: func(t *Target, name string) *unstructured.Unstructured {
		return webhookConfiguration(t, "MutatingWebhookConfiguration", name)
	},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "", t.Prefix+name, t.Owner, map[string]any{"spec": map[string]any{
			"failurePolicy": "Ignore", "paramKind": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
			"matchConstraints": matchedNothing(), "validations": []any{map[string]any{"expression": "true"}}}})
	},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", "", t.Prefix+name, t.Owner, map[string]any{"spec": map[string]any{
			"policyName": t.Prefix + ScratchObject, "validationActions": []any{"Deny"}, "matchResources": matchedNothing(),
			"paramRef": map[string]any{"name": ScratchObject, "namespace": t.Namespace, "parameterNotFoundAction": "Allow"}}})
	},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}: func(t *Target, name string) *unstructured.Unstructured {
		obj := typedObject(&flowcontrolv1.FlowSchema{TypeMeta: metav1.TypeMeta{APIVersion: "flowcontrol.apiserver.k8s.io/v1", Kind: "FlowSchema"},
			ObjectMeta: metav1.ObjectMeta{Name: t.Prefix + name, Labels: t.Owner}, Spec: flowcontrolv1.FlowSchemaSpec{
				MatchingPrecedence:         translate.TenantMinMatchingPrecedence,
				PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: t.Prefix + ScratchObject},
				Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
					Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "system:authenticated"}}},
					ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""},
						Resources: []string{"zoo-verify-none"}, Namespaces: []string{t.Namespace}}}}}}})
		unstructured.RemoveNestedField(obj.Object, "status")
		return obj
	},
}

// victimGroup is an API group of the victim's, as the upstream names it.
func victimGroup(t *Target) string { return t.Victim.Prefix() + "zoo-verify.example.com" }

// admissionValue is what an attempt sets a reference of target at leaf of
// the admission and flow control kinds to; nil for one it has none of.
func admissionValue(target translate.Target, leaf string) func(t *Target) any {
	switch {
	case target == translate.TargetAPIGroup && leaf == "apiGroups":
		return func(t *Target) any { return []any{victimGroup(t)} }
	case target == translate.TargetAPIGroup && leaf == "apiVersion":
		return func(t *Target) any { return victimGroup(t) + "/v1" }
	case target == translate.TargetNamespace && strings.HasSuffix(leaf, "s"): // a list of them (a FlowSchema rule's)
		return func(t *Target) any { return []any{t.VictimNamespace} }
	case target == translate.TargetOwned && (leaf == "policyName" || leaf == "name"):
		return func(t *Target) any { return t.Victim.Prefix() + ScratchObject }
	case target == translate.TargetIdentity && leaf == "subjects":
		return func(t *Target) any { // every request of the victim's
			return []any{map[string]any{"kind": "Group", "group": map[string]any{"name": t.Victim.TenantGroup()}}}
		}
	case target == translate.TargetSelector && leaf == "matchConditions":
		return func(*Target) any { // the proxy's own condition, always true
			return []any{map[string]any{"name": translate.TenantMatchCondition, "expression": "true"}}
		}
	}
	return nil
}

// platformValue is what the second attempt at a reference of target at
// leaf sets it to, naming the platform's own: a namespace and a priority
// level of the cluster's, its nodes' group; nil when there is none.
func platformValue(target translate.Target, leaf string) func(t *Target) any {
	switch {
	case target == translate.TargetNamespace && strings.HasSuffix(leaf, "s"):
		return func(*Target) any { return []any{"kube-system"} }
	case target == translate.TargetOwned && leaf == "name":
		return func(*Target) any { return "exempt" } // the API server's own level
	case target == translate.TargetIdentity && leaf == "subjects":
		return func(*Target) any {
			return []any{map[string]any{"kind": "Group", "group": map[string]any{"name": "system:nodes"}}}
		}
	}
	return nil
}
