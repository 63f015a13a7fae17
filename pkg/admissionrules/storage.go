package admissionrules

import (
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// StoragePolicy is the ValidatingAdmissionPolicy (and its binding) that keeps
// tenants' volumes and claims apart and keeps tenant classes from becoming
// the cluster's defaults (docs/security.md, "Storage" and "Defaults").
const StoragePolicy = "zoo-tenant-storage"

// storageCEL fills storagePolicy's own placeholders, then the shared ones.
func storageCEL(expr string) string {
	return cel(strings.NewReplacer(
		"$BETACLASS", translate.BetaStorageClassAnnotation,
		"$DEFAULTKEYS", "['"+strings.Join([]string{
			translate.DefaultStorageClassAnnotation,
			translate.BetaDefaultStorageClassAnnotation,
			translate.DefaultIngressClassAnnotation,
		}, "', '")+"']",
		"$RESERVED", "['"+strings.Join(translate.ReservedTenantNames(), "', '")+"']",
		"$VOLUMES", translate.ResourceOf("", "PersistentVolume"),
		"$CLAIMS", translate.ResourceOf("", "PersistentVolumeClaim"),
		"$STORAGECLASSES", translate.ResourceOf("storage.k8s.io", "StorageClass"),
		"$INGRESSCLASSES", translate.ResourceOf("networking.k8s.io", "IngressClass"),
		"$PRIORITYCLASSES", translate.ResourceOf("scheduling.k8s.io", "PriorityClass"),
		"$CAPACITIES", translate.ResourceOf("storage.k8s.io", "CSIStorageCapacity"),
	).Replace(expr))
}

// storagePolicy judges every write of a volume, a claim or a class, whoever
// makes it — a tenant identity, a tenant's ServiceAccount, and also the
// kube-controller-manager's volume binder, the scheduler and the
// StatefulSet and ephemeral-volume controllers, which zoo-tenant does not
// judge. Each rule reads only the request, the object's own labels and its
// namespace's labels (plus, for a claim's class, one authorization), so it
// costs the same whatever the number of tenants:
//
//  1. A volume labeled for tenant t may only be claimed from t's namespaces
//     (spec.claimRef.namespace "t-*"), whenever claimRef or the label
//     changes: a tenant
//     cannot pre-bind its volume to another tenant's claim, and the binder
//     cannot bind another tenant's claim to it.
//  2. A volume labeled for tenant t has a class in t's prefix (spec and the
//     deprecated annotation, which the binder reads first), whenever the
//     class or the label changes: no claim of another tenant can ask for it.
//  3. A claim written by a tenant identity, or created by anyone in a
//     namespace of tenant t (the StatefulSet and ephemeral-volume
//     controllers make claims from t's templates), names in spec.volumeName
//     only volumes of its tenant ("t-*"), whenever volumeName changes (the
//     binder sets it to the cluster's volumes, on an update).
//  4. A claim in a namespace of tenant t never asks for another tenant's
//     class, whenever its class changes: a class "x-..." where x is a tenant
//     other than t is refused. Whether x is a tenant is one authorization of
//     the registry identity; the platform's own classes ("standard",
//     "local-path" while no tenant "local" exists) pass.
//  5. A class labeled for a tenant is never the default: no default-class
//     annotation (any casing) other than "false", no globalDefault.
//  6. An object in a namespace of tenant t never names another tenant's
//     class (shared.go, generated from the kinds table).
//  7. A CSIStorageCapacity in a namespace of tenant t publishes capacity
//     for t's classes only: the scheduler believes capacity published in
//     any namespace, so one for the platform's class would steer every
//     tenant's pods.
//  8. A pod created in a namespace of tenant t, by anyone (the workload
//     controllers, and the platform's operators that make pods from a
//     tenant's custom resources), has an external volume source only where
//     t's policy allows it (podVolumeSourceValidations).
func storagePolicy() *admissionv1.ValidatingAdmissionPolicy {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	v := func(name, expr string) admissionv1.Variable {
		return admissionv1.Variable{Name: name, Expression: storageCEL(expr)}
	}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: StoragePolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: append(append(storageJudgedRules(),
				admissionv1.NamedRuleWithOperations{RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{translate.ResourceOf("", "Pod")}}}}),
				append(sharedRefRules(), sharedListRules()...)...)},
			Variables: []admissionv1.Variable{
				v("isZoo", zooIdentityExpr),
				v("saTenant", saTenantExpr),
				v("judged", "variables.isZoo || variables.saTenant != ''"),
				v("tenant", "variables.isZoo ? "+zooTenantExpr+" : variables.saTenant"),
				v("resource", "request.resource.resource"),
				v("labels", "has(object.metadata.labels) ? object.metadata.labels : {}"),
				v("annotations", "has(object.metadata.annotations) ? object.metadata.annotations : {}"),
				v("oldAnnotations", "oldObject != null && has(oldObject.metadata.annotations) ? oldObject.metadata.annotations : {}"),
				// owner: the tenant the object is labeled for; nsTenant: the
				// tenant of the namespace of a namespaced object.
				v("owner", "'$LABEL' in variables.labels ? variables.labels['$LABEL'] : ''"),
				v("oldOwner", "oldObject != null && has(oldObject.metadata.labels) && '$LABEL' in oldObject.metadata.labels ? oldObject.metadata.labels['$LABEL'] : ''"),
				v("nsTenant", "namespaceObject != null && has(namespaceObject.metadata.labels) && '$LABEL' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['$LABEL'] : ''"),
				v("claimNS", "variables.resource == '$VOLUMES' && has(object.spec.claimRef) && has(object.spec.claimRef.namespace) ? object.spec.claimRef.namespace : ''"),
				v("oldClaimNS", "oldObject != null && variables.resource == '$VOLUMES' && has(oldObject.spec.claimRef) && has(oldObject.spec.claimRef.namespace) ? oldObject.spec.claimRef.namespace : ''"),
				// classes: the class the binder reads (the deprecated
				// annotation first, then spec), as a list of what is set.
				v("classes", `(has(object.spec) && has(object.spec.storageClassName) ? [object.spec.storageClassName] : []) +
  ('$BETACLASS' in variables.annotations ? [variables.annotations['$BETACLASS']] : [])`),
				v("oldClasses", `oldObject == null ? [] : (has(oldObject.spec) && has(oldObject.spec.storageClassName) ? [oldObject.spec.storageClassName] : []) +
  ('$BETACLASS' in variables.oldAnnotations ? [variables.oldAnnotations['$BETACLASS']] : [])`),
				v("classChanged", "oldObject == null || variables.classes != variables.oldClasses"),
				v("volumeName", "variables.resource == '$CLAIMS' && has(object.spec.volumeName) ? object.spec.volumeName : ''"),
				v("sharedRefs", sharedRefsVariable()),
				v("refTenant", "variables.nsTenant != '' ? variables.nsTenant : variables.owner"),
				// volumeTenant: whose volumes a claim may name, for a claim a
				// tenant identity writes, and for one anyone creates in a
				// tenant's namespace (the StatefulSet and ephemeral-volume
				// controllers make claims from a tenant's templates).
				v("volumeTenant", "variables.judged ? variables.tenant : (oldObject == null ? variables.nsTenant : '')"),
				v("oldVolumeName", "oldObject != null && variables.resource == '$CLAIMS' && has(oldObject.spec.volumeName) ? oldObject.spec.volumeName : ''"),
			},
			Validations: append([]admissionv1.Validation{{
				Expression: storageCEL(`variables.resource != '$VOLUMES' || variables.owner == '' || variables.claimNS == '' ||
  (variables.claimNS == variables.oldClaimNS && variables.owner == variables.oldOwner) || variables.claimNS.startsWith(variables.owner + '-')`),
				MessageExpression: storageCEL(`'PersistentVolume ' + object.metadata.name + ' belongs to tenant ' + variables.owner +
  ': only claims in its namespaces (' + variables.owner + '-*) may bind it, not a claim in ' + variables.claimNS`),
				Reason: forbidden,
			}, {
				Expression: storageCEL(`variables.resource != '$VOLUMES' || variables.owner == '' || (!variables.classChanged && variables.owner == variables.oldOwner) ||
  (size(variables.classes) > 0 && variables.classes.all(c, c.startsWith(variables.owner + '-') && size(c) > size(variables.owner) + 1))`),
				MessageExpression: storageCEL(`'PersistentVolume ' + object.metadata.name + ' belongs to tenant ' + variables.owner +
  ': its storage class must be one of the tenant (' + variables.owner + '-*), so that no other tenant\'s claim can bind it, not ' +
  (size(variables.classes) == 0 ? '(none)' : variables.classes.join(', '))`),
				Reason: forbidden,
			}, {
				Expression: storageCEL(`variables.resource != '$CLAIMS' || variables.volumeName == '' || variables.volumeTenant == '' ||
  variables.volumeName == variables.oldVolumeName || variables.volumeName.startsWith(variables.volumeTenant + '-')`),
				MessageExpression: storageCEL(`'claims of tenant ' + variables.volumeTenant + ' may only name the tenant\'s own volumes (' +
  variables.volumeTenant + '-*) in spec.volumeName, not ' + variables.volumeName`),
				Reason: forbidden,
			}, {
				Expression: storageCEL(`variables.resource != '$CLAIMS' || variables.nsTenant == '' || !variables.classChanged ||
  variables.classes.all(c, c == '' || c.startsWith(variables.nsTenant + '-') || !c.matches('^[a-z][a-z0-9]{0,11}-.') ||
    c.split('-')[0] in $RESERVED ||
    !` + memberCheck("c.split('-')[0]", tenantapi.TenantResource, "", "get") + `)`),
				MessageExpression: storageCEL(`'claims in namespaces of tenant ' + variables.nsTenant +
  ' may not ask for another tenant\'s storage class: ' + variables.classes.join(', ')`),
				Reason: forbidden,
			}, {
				Expression: storageCEL(`!(variables.resource in ['$STORAGECLASSES', '$INGRESSCLASSES']) || variables.owner == '' ||
  !variables.annotations.exists(k, k.lowerAscii() in $DEFAULTKEYS && variables.annotations[k] != 'false')`),
				MessageExpression: storageCEL(`'the ' + variables.resource + ' of tenant ' + variables.owner +
  ' may not be the default (annotation ' + variables.annotations.filter(k, k.lowerAscii() in $DEFAULTKEYS && variables.annotations[k] != 'false').join(', ') +
  '): a default class is used by every tenant\'s objects that name none'`),
				Reason: forbidden,
			}, {
				Expression:        storageCEL(`variables.resource != '$PRIORITYCLASSES' || variables.owner == '' || !has(object.globalDefault) || !object.globalDefault`),
				MessageExpression: `'the PriorityClass of tenant ' + variables.owner + ' may not be the global default: it would apply to every tenant\'s pods'`,
				Reason:            forbidden,
			}, sharedRefValidation(forbidden), sharedListValidation(forbidden)}, append(podVolumeSourceValidations(forbidden), admissionv1.Validation{
				Expression: storageCEL(`variables.resource != '$CAPACITIES' || variables.nsTenant == '' || object == null ||
  object.storageClassName.startsWith(variables.nsTenant + '-')`),
				MessageExpression: `'CSIStorageCapacities in namespaces of tenant ' + variables.nsTenant + ' may only publish capacity for the tenant\'s storage classes (' +
  variables.nsTenant + '-*), not ' + object.storageClassName`,
				Reason: forbidden,
			})...),
		},
	}
}

// storageJudgedRules match writes of the kinds the storage policy judges
// (the rows marked StorageJudged), one rule per group.
func storageJudgedRules() []admissionv1.NamedRuleWithOperations {
	judged := map[schema.GroupResource][]string{}
	for _, k := range translate.Kinds() {
		if k.StorageJudged {
			judged[k.Resource] = nil
		}
	}
	return matchRules(judged)
}
