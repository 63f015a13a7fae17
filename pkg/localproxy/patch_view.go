package localproxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// patchInView carries out translate.PlanPatchInView: the tenant's json,
// merge or strategic merge patch is applied by the translator to the
// tenant's view of the object just read, and only the merge patch the
// translator derived from that (conditional on the resourceVersion read)
// goes upstream; the answer comes back in protobuf when the client and the
// kind allow it (translate.AcceptsProtobuf). A conflict caused by a
// concurrent write starts over, as the API server itself retries a patch.
// The row's refusal- and after-behaviours run on the upstream's answers as
// they do on a forwarded request's (pipeline.go).
func (p *Proxy) patchInView(x *exchange) {
	w, r, u := x.w, x.r, x.u
	ct := r.Header.Get("Content-Type")
	for attempt := 1; ; attempt++ {
		cur, err := p.sendUpstream(r.Context(), r, u, http.MethodGet, translate.MediaJSON, "", nil)
		if err != nil {
			writeStatus(w, unavailable(p.base.Host, err))
			return
		}
		if cur.code != http.StatusOK {
			p.answerRefusal(x, cur, nil)
			return
		}
		vp, err := p.tr.PatchInView(u, ct, x.body, cur.body)
		if err != nil {
			writeStatus(w, translate.ToStatus(err))
			return
		}
		a, err := p.sendUpstream(r.Context(), r, u, http.MethodPatch, u.Header.Get("Accept"), translate.MediaMergePatch, vp.Body)
		if err != nil {
			writeStatus(w, unavailable(p.base.Host, err))
			return
		}
		if a.code == http.StatusConflict && vp.Retry && attempt < patchRetries {
			continue
		}
		if a.code/100 == 2 {
			p.runAfterAnswer(x, a)
		}
		if askedForProtobuf(u) && strings.HasPrefix(a.header.Get("Content-Type"), translate.MediaProtobuf) {
			copyHeaders(w.Header(), a.header)
			addWarnings(w.Header(), vp.Warnings)
			p.forwardProtobuf(w, r, a.response(), u)
			return
		}
		p.answerRefusal(x, a, vp.Warnings)
		return
	}
}

// answerRefusal answers a, unless the upstream refused it (403) and one of
// the row's refusal-behaviours answers instead (the proxy's own identity
// refused, a namespace of the tenant's that does not exist).
func (p *Proxy) answerRefusal(x *exchange, a *upstreamAnswer, warnings []string) {
	if a.code == http.StatusForbidden && p.runRefused(x, a.response()) {
		return
	}
	p.answer(x.w, x.u, a, warnings)
}

// runAfterAnswer runs the row's after-behaviours on a successful answer
// read whole, and keeps what they leave of its body to translate.
func (p *Proxy) runAfterAnswer(x *exchange, a *upstreamAnswer) {
	resp := a.response()
	p.runAfter(x, resp)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		a.body = body
	}
}

// response is a as an http.Response, for the behaviours.
func (a *upstreamAnswer) response() *http.Response {
	return &http.Response{StatusCode: a.code, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body))}
}

// sendUpstream sends one request to u.Path with u.Query as the tenant
// identity and reads the whole answer. The GET of a patch takes only the
// query parameters a GET understands.
func (p *Proxy) sendUpstream(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, method, accept, contentType string,
	body []byte) (*upstreamAnswer, error) {
	up := *u
	up.Method, up.Body, up.Header = method, body, http.Header{"Accept": {accept}}
	if contentType != "" {
		up.Header.Set("Content-Type", contentType)
	}
	query := u.Query
	if method == http.MethodGet {
		query = nil
	}
	return p.roundTripAsTenant(ctx, r, &up, u.Path, query) // crb.go
}
