package admissionrules

import (
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantprop"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PropagatorName names the ClusterRole, ClusterRoleBinding and admission
// policy of the propagator identity (tenantprop.PropagatorUser), which the
// proxy and the server impersonate to write the copies of the objects a
// tenant marks for propagation.
const PropagatorName = "zoo-propagator"

// PropagatorClusterRole grants the propagator what tenantprop reads and
// writes: Secrets and ConfigMaps (PropagatorPolicy confines the writes to
// copies in tenant namespaces), the namespaces it lists by tenant label,
// and the events it records on a tenant's marked objects.
func PropagatorClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: PropagatorName, Labels: tenantapi.ManagedLabels()},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: tenantprop.Kinds, Verbs: []string{"get", "list", "watch", "create", "update", "delete"}},
			{APIGroups: []string{""}, Resources: []string{translate.ResourceOf("", "Namespace")}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{translate.ResourceOf("", "Event")}, Verbs: []string{"create"}},
		},
	}
}

// PropagatorClusterRoleBinding binds PropagatorClusterRole to the
// propagator identity: one binding for all tenants (nothing per tenant is
// cluster-wide).
func PropagatorClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   platformobj.ClusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: PropagatorName, Labels: tenantapi.ManagedLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: PropagatorName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: tenantprop.PropagatorNamespace,
			Name: tenantprop.PropagatorServiceAccount}},
	}
}

// propagatorPolicy confines every write of the propagator identity,
// whatever the code that makes it: only Secrets, ConfigMaps (and events),
// only in namespaces labeled as a tenant's and carrying its prefix, only
// objects that are copies (labeled translate.PropagatedFromLabel) before
// and after the write — so it can never change or delete an object a
// tenant or anyone else made — never a ServiceAccount token Secret, and
// never a copy labeled as a policy object.
func propagatorPolicy() *admissionv1.ValidatingAdmissionPolicy {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	v := func(name, expr string) admissionv1.Variable {
		return admissionv1.Variable{Name: name, Expression: cel(expr)}
	}
	from := quote(translate.PropagatedFromLabel)
	var reserved []string
	for _, n := range tenantprop.ReservedNames() {
		reserved = append(reserved, quote(n))
	}
	kinds := make([]string, len(tenantprop.Kinds))
	for i, k := range tenantprop.Kinds {
		kinds[i] = quote(k)
	}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: PropagatorName, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionv1.Fail),
			MatchConstraints: writes(),
			MatchConditions: []admissionv1.MatchCondition{{
				Name:       "propagator",
				Expression: "request.userInfo.username == " + quote(tenantprop.PropagatorUser),
			}},
			Variables: []admissionv1.Variable{
				v("reqGroup", "has(request.resource.group) ? request.resource.group : ''"),
				v("subres", "has(request.subResource) ? request.subResource : ''"),
				v("isCopyKind", "variables.reqGroup == '' && variables.subres == '' && request.resource.resource in ["+strings.Join(kinds, ", ")+"]"),
				v("isEvent", cel("variables.reqGroup == '' && variables.subres == '' && request.resource.resource == '$RESOURCE(core/Event)'")),
				v("nsLabels", "namespaceObject != null && has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {}"),
				v("labels", "object != null && has(object.metadata) && has(object.metadata.labels) ? object.metadata.labels : {}"),
				v("oldLabels", "oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}"),
			},
			Validations: []admissionv1.Validation{{
				Expression: "variables.isCopyKind || (variables.isEvent && request.operation == 'CREATE')",
				Message:    "the propagator writes only the copies of Secrets and ConfigMaps (and creates events)",
				Reason:     forbidden,
			}, {
				Expression: cel(`'$LABEL' in variables.nsLabels && request.namespace.startsWith(variables.nsLabels['$LABEL'] + '-')`),
				Message:    "the propagator writes only in tenant namespaces",
				Reason:     forbidden,
			}, {
				Expression: "!variables.isCopyKind || ((request.operation == 'DELETE' || (" + from + " in variables.labels && variables.labels[" + from + "] != " +
					quote(translate.PropagatedFromPolicy) + ")) && (request.operation == 'CREATE' || " + from + " in variables.oldLabels))",
				Message: "the propagator writes only copies (labeled " + translate.PropagatedFromLabel + "), never another object",
				Reason:  forbidden,
			}, {
				Expression: "!variables.isCopyKind || object == null || !(object.metadata.name in [" + strings.Join(reserved, ", ") + "])",
				Message:    "the propagator never writes what the cluster or kubectl-zoo keeps in every namespace",
				Reason:     forbidden,
			}, {
				Expression: cel("request.resource.resource != '$RESOURCE(core/Secret)' || object == null || !has(object.type) || object.type != 'kubernetes.io/service-account-token'"),
				Message:    "the propagator never writes a ServiceAccount token Secret",
				Reason:     forbidden,
			}},
		},
	}
}
