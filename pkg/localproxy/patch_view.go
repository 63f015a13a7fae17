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
// kind allow it (translate.AcceptsProtobuf). A conflict caused by a concurrent write starts over, as
// the API server itself retries a patch. patch is the tenant's body.
func (p *Proxy) patchInView(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, patch []byte) {
	ct := r.Header.Get("Content-Type")
	for attempt := 1; ; attempt++ {
		cur, err := p.sendUpstream(r.Context(), r, u, http.MethodGet, translate.MediaJSON, "", nil)
		if err != nil {
			writeStatus(w, unavailable(p.base.Host, err))
			return
		}
		if cur.code != http.StatusOK {
			p.answerRefusal(w, r, u, cur, nil)
			return
		}
		vp, err := p.tr.PatchInView(u, ct, patch, cur.body)
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
		if a.code/100 == 2 && isNamespaceWrite(u) {
			p.noteNamespaceWrite(a.body) // namespace_list.go
		}
		if a.code/100 == 2 && isClusterRoleWrite(u) {
			p.afterClusterRoleWrite(r.Context(), w, a.body) // aggregation.go
		}
		if askedForProtobuf(u) && strings.HasPrefix(a.header.Get("Content-Type"), translate.MediaProtobuf) {
			copyHeaders(w.Header(), a.header)
			addWarnings(w.Header(), vp.Warnings)
			p.forwardProtobuf(w, r, &http.Response{StatusCode: a.code, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body))}, u)
			return
		}
		p.answerRefusal(w, r, u, a, vp.Warnings)
		return
	}
}

// answerRefusal answers a, unless it is the upstream refusing the proxy's
// own identity, which ownIdentityForbidden answers without naming it.
func (p *Proxy) answerRefusal(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, a *upstreamAnswer, warnings []string) {
	if a.code == http.StatusForbidden && r.Context().Value(ownIdentityKey{}) != nil {
		if isConfinedKind(u) {
			p.confinedForbidden(w, u, a.body) // confined.go
			return
		}
		p.ownIdentityForbidden(w, r, u, a.body) // tenant_group_role.go
		return
	}
	p.answer(w, u, a, warnings)
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
