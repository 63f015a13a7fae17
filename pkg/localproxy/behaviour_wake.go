package localproxy

// wakeSleeping wakes the tenant, when it sleeps, before a write that may
// run pods (sleep.go), and answers 503 when it could not.
type wakeSleeping struct{}

func (wakeSleeping) before(p *Proxy, x *exchange) bool {
	return !p.wakeFirst(x.w, x.r, x.u)
}
