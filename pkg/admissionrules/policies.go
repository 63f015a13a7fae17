package admissionrules

import (
	"regexp"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

var (
	policyType        = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"}
	policyBindingType = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"}
)

// cel fills the placeholders of the CEL sources below with the names this
// module shares, so the expressions never drift from pkg/translate; a
// resource is named by its kind, $RESOURCE(<group>/<Kind>) ("core" for the
// core group), and filled in from the kind's row of the kinds table.
func cel(expr string) string {
	return resourcePlaceholder.ReplaceAllStringFunc(celNames(expr), func(m string) string {
		sub := resourcePlaceholder.FindStringSubmatch(m)
		group, _ := strings.CutPrefix(sub[1], "core")
		return translate.ResourceOf(group, sub[2])
	})
}

// resourcePlaceholder is $RESOURCE(<group>/<Kind>) in a CEL source.
var resourcePlaceholder = regexp.MustCompile(`\$RESOURCE\(([a-z0-9.-]+)/([A-Za-z]+)\)`)

// celNames fills the names of cel's placeholders.
var celNames = strings.NewReplacer(
	"$LABEL", translate.TenantLabel,
	"$GROUP", translate.APIGroup,
	"$TENANTGROUP", translate.TenantGroupPrefix,
	"$ADMINROLE", tenantapi.TenantAdminClusterRole,
	"$ADMINSGROUP", translate.AdminsGroup,
	"$REGISTRY_NS", tenantapi.RegistryNamespace,
	"$REGISTRY_SA", tenantapi.RegistryServiceAccount,
	"$MEMBERNS", tenantapi.MembershipNamespaceSuffix,
	"$SERVERLABEL", tenantapi.ServerAggregateLabel,
).Replace

// memberCheck is the CEL authorizer check "may the registry identity <verb>
// <resource> in the MembershipNamespace of tenant (a CEL string
// expression)": RBAC answers it from that one namespace's bindings
// (TenantRBAC).
func memberCheck(tenant, resource, name, verb string) string {
	check := "authorizer.serviceAccount('$REGISTRY_NS', '$REGISTRY_SA').group('$GROUP').resource('" + resource + "').namespace(" + tenant + " + '$MEMBERNS')"
	if name != "" {
		check += ".name(" + name + ")"
	}
	return cel(check + ".check('" + verb + "').allowed()")
}

// writes matches every write, of every resource and subresource, except the
// access reviews (authorization.k8s.io, authentication.k8s.io), which create
// nothing and which `kubectl auth can-i` needs.
func writes() *admissionv1.MatchResources {
	all := []string{"*"}
	return &admissionv1.MatchResources{
		ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect},
			Rule:       admissionv1.Rule{APIGroups: all, APIVersions: all, Resources: []string{"*/*"}},
		}}},
		ExcludeResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.OperationAll},
			Rule:       admissionv1.Rule{APIGroups: []string{"authorization.k8s.io", "authentication.k8s.io"}, APIVersions: all, Resources: []string{"*"}},
		}}},
	}
}

// InstallPolicies returns the ValidatingAdmissionPolicies of the security
// model and their bindings, for the platform's cfg. Neither takes parameters: each derives the
// tenant from the request's identity, so a write costs one evaluation of
// each policy however many tenants exist, and a new tenant is confined from
// its first request, with nothing to recompile.
func InstallPolicies(cfg InstallConfig) ([]*admissionv1.ValidatingAdmissionPolicy, []*admissionv1.ValidatingAdmissionPolicyBinding) {
	policies := []*admissionv1.ValidatingAdmissionPolicy{tenantPolicy(), identityPolicy(),
		metadataPolicy(cfg.normalized()), priorityPolicy(), // platform.go
		storagePolicy(),        // storage.go
		policyObjectsPolicy(),  // gate.go
		namespaceLimitPolicy(), // maxns.go
		ingressHostsPolicy(),   // ingress.go
		propagatorPolicy()}     // propagator.go
	binding := func(name string) *admissionv1.ValidatingAdmissionPolicyBinding {
		return &admissionv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   policyBindingType,
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tenantapi.ManagedLabels()},
			Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        name,
				ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
			},
		}
	}
	bindings := []*admissionv1.ValidatingAdmissionPolicyBinding{
		binding(tenantapi.TenantPolicy),
		binding(tenantapi.IdentityPolicy),
		binding(MetadataPolicy), binding(PriorityPolicy),
		binding(StoragePolicy),
	}
	bindings = append(bindings, policyObjectsBindings()...) // gate.go
	bindings = append(bindings, ingressHostsBinding())      // ingress.go
	return policies, append(bindings,
		binding(NamespaceLimitPolicy),
		binding(PropagatorName),
	)
}

// identityPolicy judges every write made with a zoo: user or group: the
// request must act for exactly one tenant, carry that tenant's group, and the
// tenant must exist (its MembershipRoleBinding says so, TenantRBAC). It also
// keeps tenants off kubectl-zoo's own API group.
func identityPolicy() *admissionv1.ValidatingAdmissionPolicy {
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.IdentityPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionv1.Fail),
			MatchConstraints: writes(),
			MatchConditions: []admissionv1.MatchCondition{{
				Name:       "zoo-identity",
				Expression: "request.userInfo.username.startsWith('zoo:') || (has(request.userInfo.groups) && request.userInfo.groups.exists(g, g.startsWith('zoo:')))",
			}},
			Variables: []admissionv1.Variable{{
				Name:       "groups",
				Expression: "has(request.userInfo.groups) ? request.userInfo.groups : []",
			}, {
				Name:       "claims",
				Expression: cel(claimsExpr),
			}, {
				Name:       "tenant",
				Expression: "size(variables.claims) > 0 ? variables.claims[0] : ''",
			}},
			Validations: []admissionv1.Validation{{
				Expression: "size(variables.claims) > 0",
				Message:    cel("the group $ADMINSGROUP is only for the administrators of a tenant, with the tenant's own identity"),
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}, {
				Expression:        "variables.claims.all(c, c == variables.tenant)",
				MessageExpression: "'a request may act for one tenant only, not for ' + variables.claims.join(', ')",
				Reason:            ptr.To(metav1.StatusReasonForbidden),
			}, {
				Expression:        cel("variables.groups.exists(g, g == '$TENANTGROUP' + variables.tenant)"),
				MessageExpression: cel("'identities of tenant ' + variables.tenant + ' must be in the group $TENANTGROUP' + variables.tenant"),
				Reason:            ptr.To(metav1.StatusReasonForbidden),
			}, {
				Expression:        memberCheck("variables.tenant", tenantapi.TenantResource, "", "get"),
				MessageExpression: "'tenant ' + variables.tenant + ' does not exist'",
				Reason:            ptr.To(metav1.StatusReasonForbidden),
			}, {
				Expression: cel("!has(request.resource.group) || request.resource.group != '$GROUP'"),
				Message:    "tenants may not change kubectl-zoo's own objects",
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
}
