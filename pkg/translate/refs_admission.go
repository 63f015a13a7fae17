package translate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TenantMatchCondition names the matchCondition the proxy adds to a tenant's
// webhooks and admission policies so that cluster-scoped requests of other
// tenants never reach them. It is stripped on the way out.
const TenantMatchCondition = "zoo.kubectl-zoo.io/tenant"

// tenantMatchExpression is the CEL expression of TenantMatchCondition:
// namespaced requests are already confined by the namespaceSelector;
// cluster-scoped ones must be about the tenant's objects or by its
// identities. Every term is guarded with has(): a cluster-scoped request has
// no namespace key, and a condition that fails to evaluate counts as a
// failure of the webhook or policy, which failurePolicy Fail turns into a
// denial of every other tenant's and the platform's cluster-scoped
// requests. (A condition that evaluates to false skips the request even when
// the tenant's own conditions fail.)
//
// Objects labeled PropagatedFromLabel — the ResourceQuota, LimitRange and
// NetworkPolicy kubectl-zoo makes from the tenant's policy, and the copies
// it propagates — are skipped too, before and after the write: they are
// kubectl-zoo's, in the tenant's namespaces; a tenant's mutating webhook
// could otherwise add a scope that exempts every pod to the quota as it is
// written, and its policy could refuse the update that lowers it. So are
// the requests of SleepUser: a tenant's policy could otherwise refuse the
// scale to 0 that puts it to sleep.
func (t Tenant) tenantMatchExpression() string {
	notOurs := func(obj string) string {
		return fmt.Sprintf("(%[1]s == null || !has(%[1]s.metadata) || !has(%[1]s.metadata.labels) || !('%[2]s' in %[1]s.metadata.labels))", obj, PropagatedFromLabel)
	}
	return fmt.Sprintf("((has(request.namespace) && request.namespace != '') || (has(request.name) && request.name.startsWith('%s')) || "+
		"(has(request.userInfo.groups) && '%s' in request.userInfo.groups)) && %s && %s && "+
		"(!has(request.userInfo.username) || request.userInfo.username != '%s')", t.Prefix(), t.TenantGroup(), notOurs("object"), notOurs("oldObject"), SleepUser)
}

// matchConditionsRef adds (in) or strips (out) TenantMatchCondition in the
// list at path.key.
func matchConditionsRef(path, key string) Ref {
	field := key
	if path != "" {
		field = path + "." + key
	}
	return Ref{Field: field, Target: TargetSelector, matchCondition: true, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, path, func(parent map[string]any) error {
			conds, _ := parent[key].([]any)
			out := make([]any, 0, len(conds)+1)
			for _, c := range conds {
				if cond, ok := c.(map[string]any); ok && str(cond, "name") == TenantMatchCondition {
					if m.in {
						return forbidden(grVAP, "", fmt.Sprintf("the matchCondition name %q is reserved", TenantMatchCondition))
					}
					continue
				}
				out = append(out, c)
			}
			if m.in {
				out = append(out, map[string]any{"name": TenantMatchCondition, "expression": m.tenant().tenantMatchExpression()})
			}
			if len(out) == 0 {
				delete(parent, key)
				return nil
			}
			parent[key] = out
			return nil
		})
	}}
}

// webhookRefs are the references of the Mutating/ValidatingWebhookConfiguration
// resource.
func webhookRefs(resource string) []Ref {
	return []Ref{
		namespaceRef("webhooks[].clientConfig.service", "namespace"),
		refusedField(TargetURL, gr(admissionGroup, resource), "webhooks[].clientConfig", "url",
			"the API server would dial that address; serve the webhook from a Service of the tenant"),
		labelSelectorRef("webhooks[]", "namespaceSelector", true, true),
		matchConditionsRef("webhooks[]", "matchConditions"),
		apiGroupsRef("webhooks[].rules[]", "apiGroups"),
	}
}

// admissionPolicyRefs are the references of Validating/MutatingAdmissionPolicy.
var admissionPolicyRefs = []Ref{
	apiVersionRef(TargetAPIGroup, "spec.paramKind", "apiVersion"),
	labelSelectorRef("spec.matchConstraints", "namespaceSelector", true, true),
	apiGroupsRef("spec.matchConstraints.resourceRules[]", "apiGroups"),
	apiGroupsRef("spec.matchConstraints.excludeResourceRules[]", "apiGroups"),
	matchConditionsRef("spec", "matchConditions"),
}

// policyBindingRefs are the references of Validating/MutatingAdmissionPolicyBinding.
func policyBindingRefs(policy string) []Ref {
	gr := grVAP
	if policy == "mutating" {
		gr = grMAP
	}
	return []Ref{
		clusterNameRef("spec", "policyName", gr),
		namespaceRef("spec.paramRef", "namespace"),
		labelSelectorRef("spec.matchResources", "namespaceSelector", true, true),
		apiGroupsRef("spec.matchResources.resourceRules[]", "apiGroups"),
		apiGroupsRef("spec.matchResources.excludeResourceRules[]", "apiGroups"),
	}
}

// crdRefs are the references of CustomResourceDefinition (its name is mapped
// with the CRD naming rule).
var crdRefs = []Ref{
	stringField(TargetAPIGroup, "spec", "group", func(m *mapper, _ map[string]any, g string) (string, error) {
		if m.in && IsSharedGroup(g) {
			return "", forbidden(grCRD, "", fmt.Sprintf("tenants may not define resources in the built-in API group %q", g))
		}
		return m.apiGroup(g)
	}),
	namespaceRef("spec.conversion.webhook.clientConfig.service", "namespace"),
	refusedField(TargetURL, grCRD, "spec.conversion.webhook.clientConfig", "url",
		"the API server would dial that address; serve the conversion webhook from a Service of the tenant"),
}

// checkParamKind refuses a policy whose parameters are of a built-in
// cluster-scoped kind: a binding's paramRef would then name objects the
// translator cannot confine to the tenant (other tenants' ClusterRoles, the
// cluster's nodes), and the policy's messages could show them. Parameters of
// a namespaced kind are read in the tenant's namespaces only (the binding's
// paramRef.namespace is mapped, and without one the request's namespace,
// which the selectors confine, is used); those of the tenant's own API
// groups are the tenant's whatever their scope.
func checkParamKind(_ *mapper, obj map[string]any) error {
	pk := child(child(obj, "spec"), "paramKind")
	if str(pk, "kind") == "" {
		return nil // no parameters (the API server requires a kind)
	}
	gv, err := schema.ParseGroupVersion(str(pk, "apiVersion"))
	if err != nil || !IsSharedGroup(gv.Group) {
		return nil // the API server validates it; another group is mapped into the tenant's
	}
	if rule, ok := LookupKindByKind(schema.GroupKind{Group: gv.Group, Kind: str(pk, "kind")}); ok && rule.Treatment == Namespaced {
		return nil
	}
	return forbidden(grVAP, str(child(obj, "metadata"), "name"), fmt.Sprintf(
		"a tenant's admission policy may take its parameters only from a namespaced kind or one of its own API groups, not %s %s",
		str(pk, "apiVersion"), str(pk, "kind")))
}
