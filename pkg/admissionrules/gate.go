package admissionrules

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PolicyObjectsOwnBinding is the second binding of PolicyObjectsPolicy: it
// gates the creates of ResourceQuotas, LimitRanges and NetworkPolicies that
// are not labeled as the policy's (the first binding leaves those kinds
// out, so that kubectl-zoo can make the policy's own where none exist yet).
const PolicyObjectsOwnBinding = "zoo-tenant-policy-objects-own"

// namespaceBootstrap are the objects Kubernetes' own controllers make in
// every namespace as soon as it exists, by name: one of each, which every
// namespace holds anyway (a pod needs both). Gated, they would wait for
// the controllers' retries, which back off to minutes.
var namespaceBootstrap = []struct {
	resource schema.GroupResource
	name     string
}{
	{translate.KindResource("", "ServiceAccount"), "default"},
	{translate.KindResource("", "ConfigMap"), "kube-root-ca.crt"},
}

// createRule matches the creates of resource gr, of the objects named
// names (any name when none).
func createRule(gr schema.GroupResource, names ...string) admissionv1.NamedRuleWithOperations {
	return admissionv1.NamedRuleWithOperations{ResourceNames: names, RuleWithOperations: admissionv1.RuleWithOperations{
		Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule:       admissionv1.Rule{APIGroups: []string{gr.Group}, APIVersions: []string{"*"}, Resources: []string{gr.Resource}},
	}}
}

// policyObjectsPolicy refuses, whoever asks, the create of any namespaced
// object (of every API group, custom resources included: a quota may count
// any of them, `count/<resource>.<group>`) in a tenant namespace (a
// namespace labeled TenantLabel) that has no ResourceQuota labeled
// PropagatedFromLabel=policy. Its bindings' paramRef names, in the
// request's own namespace, the ResourceQuotas so labeled, and says Deny
// when there is none: one lookup in the API server's informer of
// ResourceQuotas per create, whatever the number of tenants. So a create
// that the tenant's quota may count is judged by that quota, on every path,
// at the moment of the write; no list of what a quota counts is needed.
//
// Left out: subresources (a create of one stores no new object), the
// namespaceBootstrap objects, and the policy objects themselves when
// labeled as the policy's (policyObjectsBindings; only kubectl-zoo may
// write that label, propagatedValidations). The ResourceQuota is the last
// policy object the reconcile makes in a namespace (reconcile), so a
// namespace admits its first object with its LimitRange and NetworkPolicy
// already in force.
func policyObjectsPolicy() *admissionv1.ValidatingAdmissionPolicy {
	var bootstrap []admissionv1.NamedRuleWithOperations
	for _, b := range namespaceBootstrap {
		bootstrap = append(bootstrap, createRule(b.resource, b.name))
	}
	all := []string{"*"}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: PolicyObjectsPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			ParamKind:     policyQuotaParam,
			MatchConstraints: &admissionv1.MatchResources{
				NamespaceSelector: tenantNamespaces(),
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: all, APIVersions: all, Resources: all, Scope: ptr.To(admissionv1.NamespacedScope)},
				}}},
				ExcludeResourceRules: bootstrap,
			},
			Validations: []admissionv1.Validation{{
				// Reached only when the ResourceQuota exists.
				Expression: "params != null",
				Message:    "the namespace's policy objects do not exist yet; kubectl-zoo makes them",
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}, {
				Expression: quotaInForce,
				Message: "the namespace's share of its tenant's quota is not in force yet (kubectl-zoo has just made or moved it, " +
					"the quota controller brings it into force within moments); try again",
				Reason: ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
}

// policyQuotaParam is the parameter kind of the policies that read a tenant
// namespace's policy ResourceQuota (policyQuotaRef).
var policyQuotaParam = &admissionv1.ParamKind{APIVersion: "v1", Kind: "ResourceQuota"}

// tenantNamespaces selects the namespaces of every tenant.
func tenantNamespaces() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: translate.TenantLabel, Operator: metav1.LabelSelectorOpExists,
	}}}
}

// policyQuotaRef is a binding's parameter: the policy ResourceQuota of the
// request's namespace (labeled PropagatedFromLabel=policy); notFound says
// what a request where there is none meets.
func policyQuotaRef(notFound admissionv1.ParameterNotFoundActionType) *admissionv1.ParamRef {
	return &admissionv1.ParamRef{
		Selector:                &metav1.LabelSelector{MatchLabels: map[string]string{translate.PropagatedFromLabel: translate.PropagatedFromPolicy}},
		ParameterNotFoundAction: ptr.To(notFound),
	}
}

// quotaInForce holds when quota admission enforces limits no higher than
// the parameter's hard limits: it judges a create by status.hard, which the
// quota controller copies from spec.hard after each change. Until then a
// new quota bounds nothing, and a lowered one still admits up to its old
// limit, which the rebalance may already have given to other namespaces
// (SplitQuota's guarantee counts the new one). A raised one is held by its
// old, lower limit meanwhile, so it does not close the gate: a rebalance
// after every pod create or delete would otherwise refuse the creates of
// each namespace it raises until the controller caught up.
const quotaInForce = "!has(params.spec) || !has(params.spec.hard) || " +
	"(has(params.status) && has(params.status.hard) && params.spec.hard.all(k, k in params.status.hard && " +
	"quantity(params.status.hard[k]).compareTo(quantity(params.spec.hard[k])) <= 0))"

// policyObjectsBindings bind policyObjectsPolicy with the namespace's
// policy ResourceQuota as its parameter (Deny when missing): the first for
// every kind but the policy objects (translate.PolicyObjectResources), the second for those kinds unless the
// object is labeled as the policy's. (A policy's match conditions cannot
// exempt: the API server looks the parameter up before it evaluates them.)
func policyObjectsBindings() []*admissionv1.ValidatingAdmissionPolicyBinding {
	var kinds []admissionv1.NamedRuleWithOperations
	for _, gr := range translate.PolicyObjectResources() {
		kinds = append(kinds, createRule(gr))
	}
	binding := func(name string, match *admissionv1.MatchResources) *admissionv1.ValidatingAdmissionPolicyBinding {
		return &admissionv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   policyBindingType,
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tenantapi.ManagedLabels()},
			Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        PolicyObjectsPolicy,
				ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
				MatchResources:    match,
				ParamRef:          policyQuotaRef(admissionv1.DenyAction),
			},
		}
	}
	return []*admissionv1.ValidatingAdmissionPolicyBinding{
		binding(PolicyObjectsPolicy, &admissionv1.MatchResources{ExcludeResourceRules: kinds}),
		binding(PolicyObjectsOwnBinding, &admissionv1.MatchResources{
			ResourceRules: kinds,
			// NotIn also selects the objects without the label.
			ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: translate.PropagatedFromLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{translate.PropagatedFromPolicy},
			}}},
		}),
	}
}
