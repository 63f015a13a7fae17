package admissionrules

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// IngressHostsPolicy is the ValidatingAdmissionPolicy that holds upstream
// the ingress hosts of tenants' policies (translate/refs_ingress.go).
const IngressHostsPolicy = "zoo-tenant-ingress-hosts"

// ingressHostsPolicy judges every create and update of an Ingress in a
// tenant namespace, whoever makes it, that changes the hosts it names: each
// must be allowed by the host patterns of the namespace's policy
// ResourceQuota (translate.IngressHostsAnnotation, written by kubectl-zoo
// only, from the tenant's policy), with translate.IngressHostAllowed's
// rules. An Ingress names several hosts, and an authorizer check may be
// asked at most twice per expression, so the patterns are the parameter
// rather than a grant.
//
// Its binding looks the parameter up in the request's namespace and allows
// when there is none: a create there is refused by
// zoo-tenant-policy-objects anyway (gate.go), and an update of an
// Ingress that a controller holds by a finalizer while its namespace
// (whose quota went first) is deleted must not be refused. A tenant
// identity may not change an Ingress's hosts in a namespace being deleted
// (TenantPolicy, ingressTerminatingValidation), so the namespace's end is no
// way around it.
func ingressHostsPolicy() *admissionv1.ValidatingAdmissionPolicy {
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: IngressHostsPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			ParamKind:     policyQuotaParam, // gate.go
			MatchConstraints: &admissionv1.MatchResources{
				NamespaceSelector: tenantNamespaces(),
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{"networking.k8s.io"}, APIVersions: []string{"*"}, Resources: []string{translate.ResourceOf("networking.k8s.io", "Ingress")}},
				}}},
			},
			Variables: []admissionv1.Variable{
				{Name: "rules", Expression: ruleHostsOf("object")},
				{Name: "tls", Expression: tlsHostsOf("object")},
				{Name: "backend", Expression: "has(object.spec.defaultBackend)"},
				{Name: "changed", Expression: "oldObject == null || variables.rules != " + ruleHostsOf("oldObject") +
					" || variables.tls != " + tlsHostsOf("oldObject") + " || variables.backend != has(oldObject.spec.defaultBackend)"},
				{Name: "patterns", Expression: "has(params.metadata.annotations) && '" + translate.IngressHostsAnnotation + "' in params.metadata.annotations ? " +
					"params.metadata.annotations['" + translate.IngressHostsAnnotation + "'].split(',').filter(p, p != '') : []"},
			},
			Validations: []admissionv1.Validation{{
				Expression: "!variables.changed || (variables.rules.all(h, " + ingressHostAllowed("h") + ") && " +
					"variables.tls.all(l, l.all(h, " + ingressHostAllowed("h") + ")) && (!variables.backend || " + ingressHostAllowed("''") + "))",
				MessageExpression: "'the Ingress ' + object.metadata.name + ' names hosts its tenant\\'s policy does not allow (kubectl zoo policy set --ingress-hosts; ' + " +
					"'a rule or TLS entry without host and a default backend stand for every host); allowed: ' + " +
					"(size(variables.patterns) == 0 ? 'none' : variables.patterns.join(',')) + ': host names are one space for every tenant of the shared ingress controllers'",
				Reason: ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
}

// ruleHostsOf is a CEL list of the hosts of an Ingress's (obj) rules, ""
// for a rule without host (every host).
func ruleHostsOf(obj string) string {
	return "(has(" + obj + ".spec.rules) ? " + obj + ".spec.rules.map(r, has(r.host) ? r.host : '') : [])"
}

// tlsHostsOf is a CEL list of the host lists of an Ingress's (obj) TLS
// entries, [""] for an entry without hosts (every host).
func tlsHostsOf(obj string) string {
	return "(has(" + obj + ".spec.tls) ? " + obj + ".spec.tls.map(t, has(t.hosts) && size(t.hosts) > 0 ? t.hosts : ['']) : [])"
}

// ingressHostAllowed is the CEL twin of translate.IngressHostAllowed for
// host h and variables.patterns.
func ingressHostAllowed(h string) string {
	return "('" + translate.AnyIngressHost + "' in variables.patterns || (" + h + " != '' && (" + h + " in variables.patterns || " +
		"(" + h + ".contains('.') && !" + h + ".contains('*') && '*.' + " + h + ".substring(" + h + ".indexOf('.') + 1) in variables.patterns))))"
}

// ingressHostsBinding binds ingressHostsPolicy with the namespace's policy
// ResourceQuota as its parameter (Allow when missing, see there).
func ingressHostsBinding() *admissionv1.ValidatingAdmissionPolicyBinding {
	return &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   policyBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: IngressHostsPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        IngressHostsPolicy,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
			ParamRef:          policyQuotaRef(admissionv1.AllowAction),
		},
	}
}

// ingressTerminatingValidation: a tenant identity may not change the hosts
// of an Ingress in a namespace being deleted, where the policy ResourceQuota
// that ingressHostsPolicy reads may be gone already.
func ingressTerminatingValidation(forbidden *metav1.StatusReason) admissionv1.Validation {
	return admissionv1.Validation{
		Expression: "!(" + kindMatch("networking.k8s.io", translate.ResourceOf("networking.k8s.io", "Ingress")) + ") || variables.subres != '' || oldObject == null || object == null || " +
			"namespaceObject == null || !has(namespaceObject.metadata.deletionTimestamp) || (" + ruleHostsOf("object") + " == " + ruleHostsOf("oldObject") +
			" && " + tlsHostsOf("object") + " == " + tlsHostsOf("oldObject") + " && has(object.spec.defaultBackend) == has(oldObject.spec.defaultBackend))",
		MessageExpression: "'the namespace ' + variables.ns + ' is being deleted: the hosts of its Ingresses may not change'",
		Reason:            forbidden,
	}
}
