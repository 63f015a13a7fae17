// Package admissionrules generates the upstream rules of the security
// model: the ValidatingAdmissionPolicies, their bindings and their CEL
// (InstallPolicies), and the propagator identity's ClusterRole, binding and
// policy. It is pure: it builds objects and talks to no cluster.
//
// What lives elsewhere: `kubectl zoo install`, which applies these objects,
// is pkg/install's; the grants and objects the policies read (the registry
// grants, the namespace-limit bindings, the policy objects of a tenant
// namespace) are written by pkg/policyctl; the names they share with the
// proxy are pkg/tenantapi's and pkg/translate's. See docs/security.md.
package admissionrules
