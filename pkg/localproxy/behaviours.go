package localproxy

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The rows of the kinds table that behaviours are registered for by
// resource, named by kind (TestBehavioursAreRegisteredByKind checks that
// each is a row).
var (
	namespacesResource = kindResource("", "Namespace")
	clusterRoles       = kindResource(rbacv1.GroupName, "ClusterRole")
	roleBindings       = kindResource(rbacv1.GroupName, "RoleBinding")
	crdsResource       = kindResource("apiextensions.k8s.io", "CustomResourceDefinition")
	accessReviews      = []schema.GroupResource{
		kindResource("authorization.k8s.io", "SelfSubjectAccessReview"),
		kindResource("authorization.k8s.io", "SubjectAccessReview"),
	}
	secretsResource     = kindResource("", "Secret")
	configMapsResource  = kindResource("", "ConfigMap")
	propagatedResources = []schema.GroupResource{namespacesResource, secretsResource, configMapsResource}
)

// kindResource is the resource of the kinds table's row of a built-in kind.
func kindResource(group, kind string) schema.GroupResource {
	k, ok := translate.LookupKindByKind(schema.GroupKind{Group: group, Kind: kind})
	if !ok {
		panic("localproxy: the kinds table has no row of kind " + kind)
	}
	return k.Resource
}

// behaviours are the proxy's behaviours, by the rows they are for, in the
// order each phase runs them. Before a request is forwarded: the identity
// it goes with, then what may answer it instead (ClusterRoleBindings), what
// must exist first (API access, a woken tenant, the tenant's policies), and
// last the answers served without the upstream's (the namespace index, the
// all-namespaces reviews).
var behaviours = []behaviour{
	{name: "tenant-group-identity", rows: isTenantGroupRow, does: tenantGroupIdentity{}},
	{name: "confined-identity", rows: isConfinedRow, does: confinedIdentity{}},
	{name: "review-identity", rows: isProxyCreatesRow, does: reviewIdentity{}},
	{name: "cluster-role-bindings", resources: []schema.GroupResource{crbstore.Resource}, does: clusterRoleBindings{}},
	{name: "materialized-role-bindings", resources: []schema.GroupResource{roleBindings}, does: materializedRoleBindings{}},
	{name: "api-access", rows: hasPodSpecs, does: apiAccessFirst{}},
	{name: "wake", rows: hasPodSpecs, does: wakeSleeping{}},
	{name: "tenant-policies", resources: propagatedResources, does: tenantPolicies{}},
	{name: "namespace-index", resources: []schema.GroupResource{namespacesResource}, does: namespaceIndex{}},
	{name: "namespace-grants", resources: []schema.GroupResource{namespacesResource}, does: namespaceGrants{}},
	{name: "all-namespaces-review", resources: accessReviews, does: allNamespacesReviews{}},
	{name: "aggregation", resources: []schema.GroupResource{clusterRoles}, does: aggregation{}},
	{name: "crd-server-role", resources: []schema.GroupResource{crdsResource}, does: crdServerRole{}},
	{name: "forget-shared", rows: isSharedRow, does: forgetShared{}},
	{name: "missing-namespace", every: true, does: missingNamespace{}},
}
