package localproxy

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A request passes a pipeline (docs/design.md, "The request path"):
//
//	authenticate -> translate -> the row's before-behaviours ->
//	forward (or the plan's handler) -> the row's after-behaviours -> answer
//
// A behaviour is what the proxy does for the requests of some kinds besides
// translating and forwarding them: one small named unit in its own file
// (behaviour_*.go), registered in behaviours for the rows of the kinds
// table it concerns, with its own unit test. It implements one or more of
// the phases beforeBehaviour, refusalBehaviour and afterBehaviour; the
// pipeline runs each phase's behaviours in the order of behaviours.

// exchange is one request on its way through the pipeline: what the
// behaviours read and change. It holds the recorder, so that a request
// allocates one of them, not two.
type exchange struct {
	// rec records the answer's code (the log, the Outcome).
	rec recorder
	// w is where the answer goes: rec, or what wraps it (yaml.go,
	// tenantpolicy.go).
	w http.ResponseWriter
	// r is the tenant's request; a behaviour may change its context (the
	// identity its upstream requests are sent with, tenant_group.go).
	r *http.Request
	// u is the translated request (nil until it is translated).
	u *translate.UpstreamRequest
	// body is the tenant's own request body.
	body []byte
	// done, when set, is called once the request is served.
	done func()
}

// newExchange starts the exchange of r, answered on w.
func newExchange(w http.ResponseWriter, r *http.Request) *exchange {
	x := &exchange{rec: recorder{ResponseWriter: w, code: http.StatusOK}, r: r}
	x.w = &x.rec
	return x
}

// release calls done, if a behaviour set it.
func (x *exchange) release() {
	if x.done != nil {
		x.done()
	}
}

// beforeBehaviour runs once a request is translated, before it is
// forwarded: it may change x.r, x.u or x.w, or answer the request itself
// (answered: nothing else is done). It never runs for upgrades.
type beforeBehaviour interface {
	before(p *Proxy, x *exchange) (answered bool)
}

// refusalBehaviour runs when the upstream refused a forwarded request with
// 403, before anything of the refusal is written: it may answer instead
// (answered: the upstream's answer is dropped).
type refusalBehaviour interface {
	refused(p *Proxy, x *exchange, resp *http.Response) (answered bool)
}

// afterBehaviour runs when the upstream answered a forwarded request with
// success (2xx), before the answer is translated: it may read the answer
// (replacing resp.Body with what is left to translate) and add headers.
type afterBehaviour interface {
	after(p *Proxy, x *exchange, resp *http.Response)
}

// behaviour is one registration: a named unit and the requests it is for,
// by the rows of the kinds table.
type behaviour struct {
	// name names the behaviour (tests, docs).
	name string
	// resources are the rows (by the table's GroupResource) it is for.
	resources []schema.GroupResource
	// rows, when set, selects the rows it is for by their columns
	// (treatment, access, pod specs).
	rows func(*translate.KindRule) bool
	// every marks a behaviour for every request.
	every bool
	// does is the unit: a beforeBehaviour, refusalBehaviour and/or
	// afterBehaviour.
	does any
}

// applies reports whether b is for u: its row, or its resource.
func (b *behaviour) applies(u *translate.UpstreamRequest) bool {
	if b.every {
		return true
	}
	if b.rows != nil && u.Rule != nil && b.rows(u.Rule) {
		return true
	}
	if len(b.resources) == 0 || !u.Info.IsResourceRequest {
		return false
	}
	for _, gr := range b.resources {
		if gr.Resource == u.Info.Resource && gr.Group == u.Info.APIGroup {
			return true
		}
	}
	return false
}

// runBefore runs the before-behaviours of x's request, and reports whether
// one of them answered it.
func (p *Proxy) runBefore(x *exchange) bool {
	for i := range behaviours {
		b := &behaviours[i]
		if s, ok := b.does.(beforeBehaviour); ok && b.applies(x.u) && s.before(p, x) {
			return true
		}
	}
	return false
}

// runRefused runs the refusal-behaviours of x's request on the upstream's
// 403 resp, and reports whether one of them answered it.
func (p *Proxy) runRefused(x *exchange, resp *http.Response) bool {
	for i := range behaviours {
		b := &behaviours[i]
		if s, ok := b.does.(refusalBehaviour); ok && b.applies(x.u) && s.refused(p, x, resp) {
			return true
		}
	}
	return false
}

// runAfter runs the after-behaviours of x's request on the upstream's
// successful answer resp.
func (p *Proxy) runAfter(x *exchange, resp *http.Response) {
	for i := range behaviours {
		b := &behaviours[i]
		if s, ok := b.does.(afterBehaviour); ok && b.applies(x.u) {
			s.after(p, x, resp)
		}
	}
}
