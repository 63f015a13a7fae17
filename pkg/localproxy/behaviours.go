package localproxy

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
)

// The rows of the kinds table that behaviours are registered for by
// resource (TestBehavioursAreRegisteredByKind checks that each is a row).
var (
	namespacesResource = schema.GroupResource{Resource: "namespaces"}
	clusterRoles       = schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}
	roleBindings       = schema.GroupResource{Group: rbacv1.GroupName, Resource: "rolebindings"}
	crdsResource       = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	accessReviews      = []schema.GroupResource{
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
	}
	propagatedResources = []schema.GroupResource{namespacesResource, {Resource: "secrets"}, {Resource: "configmaps"}}
)

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
	{name: "missing-namespace", every: true, does: missingNamespace{}},
}
