package admissionrules

import (
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// NamespaceLimitPolicy refuses a tenant's namespace create while the tenant
// is at its namespace limit (policyctl/maxns.go).
const NamespaceLimitPolicy = "zoo-tenant-namespace-limit"

// namespaceLimitPolicy judges every namespace CREATE made by a zoo: identity
// or by a ServiceAccount whose namespace has the prefix of the tenant the
// new namespace is labeled for (RBAC gives no tenant ServiceAccount a right
// to create namespaces today; the rule does not depend on that). It asks
// the authorizer once whether the registry identity may `use`
// namespacelimits/reached in the tenant's MembershipNamespace, for a
// namespace in the tenant's prefix only (zoo-tenant refuses the others). Its message
// cannot name the limit: a messageExpression may not use the authorizer
// (whose reason names the marking RoleBinding, and so the limit), and
// nothing else the request carries knows it. The proxy's refusal, which
// counts, names it.
func namespaceLimitPolicy() *admissionv1.ValidatingAdmissionPolicy {
	v := func(name, expr string) admissionv1.Variable {
		return admissionv1.Variable{Name: name, Expression: cel(expr)}
	}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: NamespaceLimitPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{translate.ResourceOf("", "Namespace")}},
				},
			}}},
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "tenant-identity",
				Expression: zooIdentityExpr + ` ||
  (request.userInfo.username.startsWith('system:serviceaccount:') && !request.userInfo.username.startsWith('system:serviceaccount:kube-system:'))`,
			}},
			Variables: []admissionv1.Variable{
				v("labels", "object != null && has(object.metadata) && has(object.metadata.labels) ? object.metadata.labels : {}"),
				v("saTenant", `request.userInfo.username.startsWith('system:serviceaccount:') && size(request.userInfo.username.split(':')) == 4 &&
  '$LABEL' in variables.labels && request.userInfo.username.split(':')[2].startsWith(variables.labels['$LABEL'] + '-') ?
  variables.labels['$LABEL'] : ''`),
				v("tenant", "("+zooIdentityExpr+") ? "+zooTenantExpr+" : variables.saTenant"),
				v("reached", memberDecision("variables.tenant", NamespaceLimitResource, quote(NamespaceLimitReached), "use")),
			},
			Validations: []admissionv1.Validation{{
				// A name outside the tenant's prefix is zoo-tenant's to refuse
				// (and its refusal, not this one, is what the tenant must see).
				Expression:        "variables.tenant == '' || !object.metadata.name.startsWith(variables.tenant + '-') || !variables.reached.allowed()",
				MessageExpression: "'tenant ' + variables.tenant + ' has as many namespaces as its policy allows (maxNamespaces; see kubectl zoo policy show ' + variables.tenant + ')'",
				Reason:            ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
}

// memberDecision is memberCheck's authorizer decision, not yet reduced to
// allowed().
func memberDecision(tenant, resource, name, verb string) string {
	return cel("authorizer.serviceAccount('$REGISTRY_NS', '$REGISTRY_SA').group('$GROUP').resource('" + resource + "').namespace(" + tenant +
		" + '$MEMBERNS').name(" + name + ").check('" + verb + "')")
}
