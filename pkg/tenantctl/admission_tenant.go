package tenantctl

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// tenantPolicy confines the writes of one tenant (its Tenant record is the
// parameter; its binding has every Tenant record as one). It judges requests from
// the tenant's users (zoo:<t>:*), from anyone in the tenant's groups
// (zoo:tenant:<t>, zoo:<t>:*), and from the ServiceAccounts of the tenant's
// namespaces (system:serviceaccount:<t>-*), which carry no zoo group.
func tenantPolicy() *admissionv1.ValidatingAdmissionPolicy {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	v := func(name, expr string) admissionv1.Variable {
		return admissionv1.Variable{Name: name, Expression: cel(expr)}
	}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: TenantPolicy, Labels: managedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionv1.Fail),
			ParamKind:        &admissionv1.ParamKind{APIVersion: TenantGVR.GroupVersion().String(), Kind: TenantKind},
			MatchConstraints: writes(),
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "tenant-identity",
				Expression: cel(`request.userInfo.username.startsWith('zoo:' + params.metadata.name + ':') ||
  request.userInfo.username.startsWith('system:serviceaccount:' + params.metadata.name + '-') ||
  (has(request.userInfo.groups) && request.userInfo.groups.exists(g, g == '$TENANTGROUP' + params.metadata.name || g.startsWith('zoo:' + params.metadata.name + ':')))`),
			}},
			Variables: []admissionv1.Variable{
				// Empty request fields are absent in CEL, hence the has().
				v("ns", "has(request.namespace) ? request.namespace : ''"),
				v("subres", "has(request.subResource) ? request.subResource : ''"),
				v("reqName", "has(request.name) ? request.name : ''"),
				v("reqGroup", "has(request.resource.group) ? request.resource.group : ''"),
				v("tenant", "params.metadata.name"),
				v("prefix", "params.metadata.name + '-'"),
				v("isNamespace", "variables.reqGroup == '' && request.resource.resource == 'namespaces'"),
				v("isCRD", "variables.reqGroup == 'apiextensions.k8s.io' && request.resource.resource == 'customresourcedefinitions'"),
				v("isRBAC", "variables.reqGroup == 'rbac.authorization.k8s.io' && variables.subres == ''"),
				v("clusterScoped", "variables.ns == '' || variables.isNamespace"),
				// target is the name that must carry the tenant's prefix: the
				// namespace of a namespaced object, the group of a CRD, else
				// the object's own name.
				v("target", `variables.isCRD ? (object != null ? object.spec.group : (oldObject != null ? oldObject.spec.group : '')) :
  !variables.clusterScoped ? variables.ns :
  variables.reqName != '' ? variables.reqName :
  (object != null && has(object.metadata) && has(object.metadata.name) ? object.metadata.name : '')`),
				v("labels", "object != null && has(object.metadata) && has(object.metadata.labels) ? object.metadata.labels : {}"),
				v("oldLabels", "oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}"),
			},
			Validations: []admissionv1.Validation{{
				Expression: "variables.target.startsWith(variables.prefix) && size(variables.target) > size(variables.prefix)",
				MessageExpression: `'tenant ' + variables.tenant + ' may only write ' +
  (variables.isCRD ? 'CustomResourceDefinitions whose group' : variables.clusterScoped ? 'cluster-scoped objects whose name' : 'in namespaces whose name') +
  ' starts with ' + variables.prefix + ', not ' + (variables.target == '' ? '(no name)' : variables.target)`,
				Reason: forbidden,
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
				Expression: cel(`!variables.isRBAC || !(request.resource.resource in ['rolebindings', 'clusterrolebindings']) || object == null ||
  object.roleRef.kind == 'Role' || object.roleRef.name.startsWith(variables.prefix) || object.roleRef.name == '$ADMINROLE'`),
				MessageExpression: cel(`'bindings of tenant ' + variables.tenant + ' may only refer to its own ClusterRoles (' + variables.prefix + '*) or to $ADMINROLE, not to ' + object.roleRef.name`),
				Reason:            forbidden,
			}, {
				Expression: cel(`!variables.isRBAC || !(request.resource.resource in ['rolebindings', 'clusterrolebindings']) || object == null || !has(object.subjects) ||
  object.subjects.all(s,
    s.kind == 'ServiceAccount' ? has(s.namespace) && s.namespace.startsWith(variables.prefix) :
    s.kind == 'User' ? s.name.startsWith('zoo:' + variables.tenant + ':') || s.name.startsWith('system:serviceaccount:' + variables.prefix) :
    s.name == '$TENANTGROUP' + variables.tenant || s.name.startsWith('zoo:' + variables.tenant + ':') || s.name.startsWith('system:serviceaccounts:' + variables.prefix))`),
				MessageExpression: "'bindings of tenant ' + variables.tenant + ' may only name the tenant\\'s own users, groups and ServiceAccounts'",
				Reason:            forbidden,
			}, {
				Expression: `!variables.isRBAC || request.resource.resource != 'clusterrolebindings' || object == null || !has(object.subjects) || size(object.subjects) == 0`,
				Message:    "a tenant's ClusterRoleBindings carry no subjects upstream (they would grant cluster-wide); kubectl-zoo grants their subjects with RoleBindings in the tenant's namespaces",
				Reason:     forbidden,
			}, {
				Expression: cel(`!variables.isRBAC || request.resource.resource != 'clusterroles' || object == null ||
  (!variables.labels.exists(k, k.startsWith('rbac.authorization.k8s.io/aggregate-to-')) &&
   (!has(object.aggregationRule) || !has(object.aggregationRule.clusterRoleSelectors) ||
    object.aggregationRule.clusterRoleSelectors.all(s, has(s.matchLabels) && '$LABEL' in s.matchLabels && s.matchLabels['$LABEL'] == variables.tenant)))`),
				MessageExpression: cel("'ClusterRoles of tenant ' + variables.tenant + ' may not aggregate into other roles, and may only aggregate roles selected by $LABEL=' + variables.tenant"),
				Reason:            forbidden,
			}},
		},
	}
}
