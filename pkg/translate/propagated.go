package translate

// PropagatedFromLabel marks an object that kubectl-zoo propagates into a
// tenant namespace (policy ResourceQuotas, LimitRanges and NetworkPolicies,
// and copies of objects the tenant marked for propagation). Its value names
// the source: PropagatedFromPolicy, or the tenant-side namespace of the
// object copied. The tenant sees such objects and cannot write them.
const PropagatedFromLabel = APIGroup + "/propagated-from"

// PropagatedFromPolicy is the PropagatedFromLabel value of objects a
// tenant's policy implies. It holds a dot, which no namespace name does, so
// no copy of a tenant's object can pass for a policy object.
const PropagatedFromPolicy = "zoo.policy"
