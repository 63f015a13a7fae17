package admissionrules

import (
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// statusFieldValidations hold, for tenant identities, the status fields of
// otherwise writable statuses that the platform owns
// (translate.KindRule.PlatformStatusFields): an update may not change them.
func statusFieldValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	var out []admissionv1.Validation
	for _, k := range translate.Kinds() {
		if len(k.PlatformStatusFields) == 0 {
			continue
		}
		var same []string
		for _, f := range k.PlatformStatusFields {
			o, n := "oldObject.status."+f, "object.status."+f
			same = append(same, "(has("+n+") == has("+o+") && (!has("+n+") || "+n+" == "+o+"))")
		}
		match := "variables.reqGroup == " + strconv.Quote(k.Resource.Group) + " && request.resource.resource == " + strconv.Quote(k.Resource.Resource) +
			" && variables.subres == 'status' && request.operation == 'UPDATE' && object != null && oldObject != null && has(object.status) && has(oldObject.status)"
		out = append(out, admissionv1.Validation{
			Expression: "!(" + match + ") || (" + strings.Join(same, " && ") + ")",
			Message:    "tenants may not change " + strings.Join(k.PlatformStatusFields, ", ") + " in the status of " + k.Resource.String() + ": the shared cluster's controllers set them",
			Reason:     forbidden,
		})
	}
	return out
}

// TenantPolicy judges a request (variable judged) and names its tenant
// (variable tenant) Both are derived from the request alone, so
// a request costs the same whatever the number of tenants:
//   - zoo: identities (user zoo:<t>:<u>, groups zoo:tenant:<t> and
//     zoo:<t>:<g>): the tenant is the one the identity names (IdentityPolicy
//     refuses an identity that names two tenants, or a tenant that does not
//     exist);
//   - ServiceAccounts (system:serviceaccount:<ns>:<name>, which carry no zoo
//     group) writing into a namespace that is labeled as a tenant's, when
//     their own namespace has that tenant's prefix: the tenant is the one of
//     that label. Tenant names contain no "-", so the prefix is unambiguous.
//     A tenant's ServiceAccounts hold no rights outside the tenant's
//     namespaces (RBAC: a tenant can only bind them with RoleBindings there,
//     and its ClusterRoleBindings carry no subjects upstream), so RBAC alone
//     confines their other requests; no Tenant record has to be looked up.
const (
	zooIdentityExpr = `request.userInfo.username.startsWith('zoo:') || (has(request.userInfo.groups) && request.userInfo.groups.exists(g, g.startsWith('zoo:')))`
	// claimsExpr is every tenant a zoo: identity names, in order. The group
	// of all tenants' administrators ($ADMINSGROUP) names none.
	claimsExpr = `(request.userInfo.username.startsWith('zoo:') ? [request.userInfo.username.split(':')[1]] : []) +
  (has(request.userInfo.groups) ? request.userInfo.groups : []).filter(g, g.startsWith('zoo:') && g != '$ADMINSGROUP').map(g, g.startsWith('$TENANTGROUP') ? g.substring(size('$TENANTGROUP')) : g.split(':')[1])`
	// zooTenantExpr is the tenant a zoo: identity acts for (the first it
	// names; IdentityPolicy refuses more than one), or '' when it names
	// none, which every policy refuses.
	zooTenantExpr = `((` + claimsExpr + `) + [''])[0]`
	// saTenantExpr is the tenant of a ServiceAccount writing into one of its
	// tenant's namespaces, else ''.
	saTenantExpr = `request.userInfo.username.startsWith('system:serviceaccount:') && size(request.userInfo.username.split(':')) == 4 &&
  namespaceObject != null && has(namespaceObject.metadata.labels) && '$LABEL' in namespaceObject.metadata.labels &&
  request.userInfo.username.split(':')[2].startsWith(namespaceObject.metadata.labels['$LABEL'] + '-') ?
  namespaceObject.metadata.labels['$LABEL'] : ''`
	// saNsTenantExpr is the tenant of a ServiceAccount changing or deleting a
	// Namespace object of its own tenant, else ''. RBAC lets a RoleBinding in
	// a namespace grant rights on that namespace's own object, and for
	// Namespace requests namespaceObject is null, so saTenantExpr misses it.
	saNsTenantExpr = `(has(request.resource.group) ? request.resource.group : '') == '' && request.resource.resource == '$RESOURCE(core/Namespace)' &&
  request.userInfo.username.startsWith('system:serviceaccount:') && size(request.userInfo.username.split(':')) == 4 &&
  oldObject != null && has(oldObject.metadata.labels) && '$LABEL' in oldObject.metadata.labels &&
  request.userInfo.username.split(':')[2].startsWith(oldObject.metadata.labels['$LABEL'] + '-') ?
  oldObject.metadata.labels['$LABEL'] : ''`
)

// tenantPolicy confines the writes of every tenant with one evaluation per
// request: it takes no parameters, and derives the tenant from the request's
// identity (see the expressions above). Every rule holds only for judged
// requests.
//
// Ownership is the label, not only the name: a namespaced write needs a
// target namespace labeled as the tenant's (so a platform namespace that
// happens to carry a tenant's prefix is not the tenant's), and an update or
// delete of a cluster-scoped object needs the object labeled as the tenant's.
func tenantPolicy() *admissionv1.ValidatingAdmissionPolicy {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	v := func(name, expr string) admissionv1.Variable {
		return admissionv1.Variable{Name: name, Expression: cel(expr)}
	}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionv1.Fail),
			MatchConstraints: writes(),
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "tenant-identity",
				// Match conditions see neither variables nor namespaceObject:
				// a cheap superset here (a zoo: identity, or a ServiceAccount
				// outside kube-system, which no tenant can own); the variable
				// judged decides exactly.
				Expression: zooIdentityExpr + ` ||
  (request.userInfo.username.startsWith('system:serviceaccount:') && !request.userInfo.username.startsWith('system:serviceaccount:kube-system:'))`,
			}},
			Variables: append([]admissionv1.Variable{
				v("isZoo", zooIdentityExpr),
				v("saTenant", saTenantExpr),
				v("saNsTenant", saNsTenantExpr),
				v("judged", "variables.isZoo || variables.saTenant != '' || variables.saNsTenant != ''"),
				v("tenant", "variables.isZoo ? "+zooTenantExpr+" : variables.saTenant != '' ? variables.saTenant : variables.saNsTenant"),
				// Empty request fields are absent in CEL, hence the has().
				v("ns", "has(request.namespace) ? request.namespace : ''"),
				v("subres", "has(request.subResource) ? request.subResource : ''"),
				v("reqName", "has(request.name) ? request.name : ''"),
				v("reqGroup", "has(request.resource.group) ? request.resource.group : ''"),
				v("prefix", "variables.tenant + '-'"),
				v("isNamespace", "variables.reqGroup == '' && request.resource.resource == '$RESOURCE(core/Namespace)'"),
				v("isCRD", "variables.reqGroup == 'apiextensions.k8s.io' && request.resource.resource == '$RESOURCE(apiextensions.k8s.io/CustomResourceDefinition)'"),
				v("isRBAC", "variables.reqGroup == 'rbac.authorization.k8s.io' && variables.subres == ''"),
				v("clusterScoped", "variables.ns == '' || variables.isNamespace"),
				// target is the name that must carry the tenant's prefix: the
				// namespace of a namespaced object, the group of a CRD, else
				// the object's own name.
				v("target", `variables.isCRD ? (object != null ? object.spec.group : (oldObject != null ? oldObject.spec.group : '')) :
  !variables.clusterScoped ? variables.ns :
  variables.reqName != '' ? variables.reqName :
  (object != null && has(object.metadata) && has(object.metadata.name) ? object.metadata.name : '')`),
				v("nsLabels", "namespaceObject != null && has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {}"),
				v("labels", "object != null && has(object.metadata) && has(object.metadata.labels) ? object.metadata.labels : {}"),
				v("oldLabels", "oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}"),
			}, classifiedVariables()...), // subresources.go
			Validations: tenantValidations(forbidden),
		},
	}
}

// tenantValidations are TenantPolicy's rules, in the order docs/security.md
// lists them; each holds only for requests the policy judges.
func tenantValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	rules := []admissionv1.Validation{{
		Expression: "variables.tenant != '' && variables.target.startsWith(variables.prefix) && size(variables.target) > size(variables.prefix)",
		MessageExpression: `'tenant ' + variables.tenant + ' may only write ' +
  (variables.isCRD ? 'CustomResourceDefinitions whose group' : variables.clusterScoped ? 'cluster-scoped objects whose name' : 'in namespaces whose name') +
  ' starts with ' + variables.prefix + ', not ' + (variables.target == '' ? '(no name)' : variables.target)`,
		Reason: forbidden,
	}, {
		Expression:        cel("variables.clusterScoped || ('$LABEL' in variables.nsLabels && variables.nsLabels['$LABEL'] == variables.tenant)"),
		MessageExpression: cel("'namespace ' + variables.ns + ' is not labeled $LABEL=' + variables.tenant + ': tenant ' + variables.tenant + ' may only write in its own namespaces'"),
		Reason:            forbidden,
	}, {
		Expression: cel(`!variables.clusterScoped || request.operation == 'CREATE' ||
  ('$LABEL' in variables.oldLabels && variables.oldLabels['$LABEL'] == variables.tenant)`),
		MessageExpression: cel("'tenant ' + variables.tenant + ' may only change cluster-scoped objects labeled $LABEL=' + variables.tenant"),
		Reason:            forbidden,
	}, {
		Expression: cel("!('$LABEL' in variables.labels) || variables.labels['$LABEL'] == variables.tenant"),
		Message:    cel("the label $LABEL marks ownership: a tenant may only set it to its own name"),
		Reason:     forbidden,
	}, {
		Expression: cel(`request.operation != 'UPDATE' || !('$LABEL' in variables.oldLabels) ||
  ('$LABEL' in variables.labels && variables.labels['$LABEL'] == variables.oldLabels['$LABEL'])`),
		Message: cel("the label $LABEL marks ownership and may not be changed or removed"),
		Reason:  forbidden,
	}, {
		Expression:        cel("request.operation != 'CREATE' || !variables.clusterScoped || variables.subres != '' || '$LABEL' in variables.labels"),
		MessageExpression: cel("'cluster-scoped objects of tenant ' + variables.tenant + ' must carry the label $LABEL=' + variables.tenant"),
		Reason:            forbidden,
	}, {
		Expression: cel(`!variables.isRBAC || !(request.resource.resource in ['$RESOURCE(rbac.authorization.k8s.io/RoleBinding)', '$RESOURCE(rbac.authorization.k8s.io/ClusterRoleBinding)']) || object == null ||
  object.roleRef.kind == 'Role' || object.roleRef.name.startsWith(variables.prefix) || object.roleRef.name == '$ADMINROLE'`),
		MessageExpression: cel(`'bindings of tenant ' + variables.tenant + ' may only refer to its own ClusterRoles (' + variables.prefix + '*) or to $ADMINROLE, not to ' + object.roleRef.name`),
		Reason:            forbidden,
	}, {
		Expression: cel(`!variables.isRBAC || !(request.resource.resource in ['$RESOURCE(rbac.authorization.k8s.io/RoleBinding)', '$RESOURCE(rbac.authorization.k8s.io/ClusterRoleBinding)']) || object == null || !has(object.subjects) ||
  object.subjects.all(s,
    s.kind == 'ServiceAccount' ? has(s.namespace) && s.namespace.startsWith(variables.prefix) :
    s.kind == 'User' ? s.name.startsWith('zoo:' + variables.tenant + ':') || s.name.startsWith('system:serviceaccount:' + variables.prefix) :
    s.name == '$TENANTGROUP' + variables.tenant || s.name.startsWith('zoo:' + variables.tenant + ':') || s.name.startsWith('system:serviceaccounts:' + variables.prefix))`),
		MessageExpression: "'bindings of tenant ' + variables.tenant + ' may only name the tenant\\'s own users, groups and ServiceAccounts'",
		Reason:            forbidden,
	}, {
		Expression: cel(`!variables.isRBAC || request.resource.resource != '$RESOURCE(rbac.authorization.k8s.io/ClusterRoleBinding)' || object == null || !has(object.subjects) || size(object.subjects) == 0`),
		Message:    "a tenant's ClusterRoleBindings carry no subjects upstream (they would grant cluster-wide); kubectl-zoo grants their subjects with RoleBindings in the tenant's namespaces",
		Reason:     forbidden,
	}, {
		Expression: cel(`!variables.isRBAC || request.resource.resource != '$RESOURCE(rbac.authorization.k8s.io/ClusterRole)' || object == null ||
  (!variables.labels.exists(k, k.startsWith('rbac.authorization.k8s.io/aggregate-to-')) &&
   (!has(object.aggregationRule) || !has(object.aggregationRule.clusterRoleSelectors) ||
    object.aggregationRule.clusterRoleSelectors.all(s, has(s.matchLabels) && '$LABEL' in s.matchLabels && s.matchLabels['$LABEL'] == variables.tenant)))`),
		MessageExpression: cel("'ClusterRoles of tenant ' + variables.tenant + ' may not aggregate into other roles, and may only aggregate roles selected by $LABEL=' + variables.tenant"),
		Reason:            forbidden,
	}}
	rules = append(rules, serverLabelValidations(forbidden)...)
	rules = append(rules, membershipValidations(forbidden)...)
	rules = append(rules, refValidations(forbidden)...)
	rules = append(rules, affinityValidations(forbidden)...) // selector.go
	rules = append(rules, statusFieldValidations(forbidden)...)
	rules = append(rules, propagatedValidations(forbidden)...)     // propagated.go
	rules = append(rules, classifiedValidations(forbidden)...)     // subresources.go
	rules = append(rules, volumeSourceValidations(forbidden)...)   // volumes.go
	rules = append(rules, ingressTerminatingValidation(forbidden)) // ingress.go
	for i := range rules {
		rules[i].Expression = "!variables.judged || (" + rules[i].Expression + ")"
	}
	return rules
}

// membershipValidations keep what makes the tenant a member
// (TenantRBAC) out of its own hands: like the API server of any cluster, a
// tenant may not delete its default, kube-system and kube-public namespaces
// (kube-system holds its MembershipRoleBinding), nor delete a RoleBinding
// that names the registry identity (its bindings may not name it at all, so
// it cannot change one either).
func membershipValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	immortal := make([]string, 0, 3)
	for _, ns := range []string{"default", "kube-system", "kube-public"} {
		immortal = append(immortal, "variables.prefix + "+quote(ns))
	}
	return []admissionv1.Validation{{
		Expression:        "!variables.isNamespace || request.operation != 'DELETE' || !(variables.reqName in [" + strings.Join(immortal, ", ") + "])",
		MessageExpression: "'namespaces \\'' + variables.reqName + '\\' is forbidden: this namespace may not be deleted'",
		Reason:            forbidden,
	}, {
		Expression: cel(`!variables.isRBAC || request.resource.resource != '$RESOURCE(rbac.authorization.k8s.io/RoleBinding)' || request.operation != 'DELETE' || oldObject == null ||
  !has(oldObject.subjects) || !oldObject.subjects.exists(s, s.kind == 'ServiceAccount' && has(s.namespace) && s.namespace == '$REGISTRY_NS' && s.name == '$REGISTRY_SA')`),
		MessageExpression: "'RoleBinding ' + variables.reqName + ' makes tenant ' + variables.tenant + ' a member of the cluster; kubectl-zoo keeps it'",
		Reason:            forbidden,
	}}
}
