package localproxy

// tenantPolicies runs the tenant's policies around a write of namespaces,
// Secrets and ConfigMaps (tenantpolicy.go): a namespace beyond the
// tenant's limit is refused here (maxns.go), and the copies of a marked
// object are written once the upstream said yes, before the answer is
// (tenantprop.go).
type tenantPolicies struct{}

func (tenantPolicies) before(p *Proxy, x *exchange) bool {
	w, done := p.withPolicies(x.w, x.r, x.u)
	if w == nil {
		return true
	}
	x.w, x.done = w, done
	return false
}
