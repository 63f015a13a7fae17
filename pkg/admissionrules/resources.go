package admissionrules

import "github.com/kubectl-zoo/kubectl-zoo/pkg/translate"

// The virtual resources (in kubectl-zoo's API group) whose `use`, granted
// to the registry identity in a tenant's MembershipNamespace, the policies
// of this package ask the authorizer about.
const (
	// NamespaceLimitResource is the virtual resource (in kubectl-zoo's API
	// group) whose `use` on NamespaceLimitReached marks a tenant at its limit.
	NamespaceLimitResource = "namespacelimits"
	// NamespaceLimitReached is the resource name of that grant.
	NamespaceLimitReached = "reached"
)

// ExternalNameResource is the virtual resource (in kubectl-zoo's API group)
// whose `use` on an external name or "*." pattern, granted to the registry
// identity in a tenant's MembershipNamespace, lets the tenant's Services
// name it as their externalName (the zoo-tenant policy asks the authorizer
// about the name and its one-label wildcard, address.go). The
// grant is the tenant's policy's externalNames, as the priority grant is
// its priorityClasses (policyctl/priority.go).
const ExternalNameResource = "externalnames"

// PriorityClassResource is the virtual resource (in kubectl-zoo's API
// group) whose `use` on a cluster PriorityClass's name, granted to the
// registry identity in a tenant's MembershipNamespace, lets the tenant's pods
// use that class although its value is positive (PriorityPolicy asks the
// authorizer). The grant is the tenant's policy's priorityClasses
// (PriorityGrant).
var PriorityClassResource = translate.ResourceOf("scheduling.k8s.io", "PriorityClass")
