package localproxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// passRequestHeaders are the request headers (besides Accept and
// Content-Type, which the translator sets) passed upstream.
var passRequestHeaders = []string{"User-Agent", "Accept-Language", "X-Request-Id", "Audit-Id"}

// passResponseHeaders are the upstream response headers passed back. Neither
// Content-Length (translation changes the length) nor ETag (it names the
// upstream document) are.
var passResponseHeaders = []string{"Content-Type", "Audit-Id", "Warning", "Cache-Control", "Retry-After",
	"X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid", "Date"}

// newUpstreamRequest builds the upstream HTTP request of u at path and query.
func (p *Proxy) newUpstreamRequest(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, path string, query map[string][]string) (*http.Request, error) {
	var body io.Reader
	if u.Body != nil {
		body = bytes.NewReader(u.Body)
	}
	req, err := http.NewRequestWithContext(ctx, u.Method, "/", body)
	if err != nil {
		return nil, err
	}
	req.URL = p.upstreamURL(path, query) // no String and Parse round trip
	req.Host = req.URL.Host
	for _, name := range passRequestHeaders {
		if v := r.Header.Values(name); len(v) > 0 {
			req.Header[name] = v
		}
	}
	for name, v := range u.Header {
		req.Header[name] = v
	}
	return req, nil
}

// forward sends a translated request upstream once and answers with the
// translated answer: the upstream's refusal with 403 passes the request's
// refusal-behaviours, its success its after-behaviours (pipeline.go).
func (p *Proxy) forward(x *exchange) {
	w, r, u := x.w, x.r, x.u
	ctx := r.Context()
	if u.Info.Verb == "watch" {
		var cancel context.CancelFunc
		ctx, cancel = p.watchContext(ctx)
		defer cancel()
	}
	req, err := p.newUpstreamRequest(ctx, r, u, u.Path, u.Query)
	if err != nil {
		writeStatus(w, badRequest(err.Error()))
		return
	}
	resp, err := p.client.Do(req)
	if err != nil {
		writeStatus(w, unavailable(p.base.Host, err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusForbidden && p.runRefused(x, resp) {
		return
	}
	copyHeaders(w.Header(), resp.Header)
	addWarnings(w.Header(), u.Warnings)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") && u.Response != translate.ResponseRaw {
		w.Header().Set("Content-Type", "application/json")
	}
	if u.Response == translate.ResponseOpenAPIV2Protobuf && resp.StatusCode == http.StatusOK {
		w.Header().Set("Content-Type", translate.MediaOpenAPIV2Protobuf) // translated from JSON (openapi_v2.go)
		w.Header().Del("Etag")                                           // the upstream's is of its JSON document
	}
	if resp.StatusCode/100 == 2 {
		p.runAfter(x, resp)
	}
	p.answerUpstream(ctx, w, r, u, resp)
}

// answerUpstream translates the upstream's answer resp to u into the
// tenant's terms and writes it. ctx is the request's (a watch's is
// bounded).
func (p *Proxy) answerUpstream(ctx context.Context, w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, resp *http.Response) {
	watch := u.Info.Verb == "watch"
	if resp.StatusCode == http.StatusNotModified || r.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent {
		w.WriteHeader(resp.StatusCode)
		return
	}
	if u.Response == translate.ResponseRaw {
		w.WriteHeader(resp.StatusCode)
		copyFlushing(w, resp.Body)
		return
	}
	ct := resp.Header.Get("Content-Type")
	protobuf := askedForProtobuf(u) && strings.HasPrefix(ct, translate.MediaProtobuf)
	if protobuf && (!watch || resp.StatusCode != http.StatusOK) {
		p.forwardProtobuf(w, r, resp, u)
		return
	}
	if !protobuf && resp.StatusCode >= http.StatusBadRequest && !jsonAnswer(ct) {
		// A failure the upstream wrote as text ("404 page not found" of a
		// group not (yet) served) or with no body: the Status client-go
		// would make of it, without the text, which the translator cannot
		// read.
		w.Header().Del("Content-Type")
		writeStatus(w, failureStatus(resp.StatusCode, u.Info.Verb, resp.Header))
		return
	}
	if !protobuf && !translatable(ct) {
		// Never pass what the translator cannot read: it would carry
		// upstream names (and could carry another tenant's) untranslated.
		w.Header().Del("Content-Type")
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadGateway, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("the upstream answered in %q, which kubectl-zoo cannot translate", ct)})
		return
	}
	lw := &lazyWriter{w: w, code: resp.StatusCode}
	translate := func() error { return p.tr.TranslateResponse(u, resp.Body, lw) }
	if protobuf { // a watch stream
		translate = func() error { return p.tr.TranslateProtobufWatch(u.Rule, resp.Body, lw) }
	}
	switch {
	case watch && resp.StatusCode == http.StatusOK:
		lw.Write(nil) //nolint:errcheck // sends the header now: clients wait for it
		lw.Flush()
	case watch:
		// A refused watch answers with a Status, not a stream.
		translate = func() error { return p.tr.TranslateList(u.Rule, resp.Body, lw) }
	}
	if err := translate(); err != nil {
		if lw.wrote {
			if ctx.Err() == nil {
				klog.ErrorS(err, "translating the upstream answer failed midway", "tenant", p.tenant.Name(), "path", r.URL.Path)
			}
			return
		}
		writeStatus(w, translateStatus(err))
	}
}

// copyHeaders copies the passed response headers.
func copyHeaders(dst, src http.Header) {
	for _, name := range passResponseHeaders {
		if v := src.Values(name); len(v) > 0 {
			dst[name] = v
		}
	}
}

// translatable reports whether an answer is JSON the translator reads. The
// upstream asked for JSON answers in JSON, but some handlers (the OpenAPI v3
// index) do not label it: only other known encodings are passed untouched.
func translatable(ct string) bool {
	mt, _, err := translate.ParseMediaType(ct)
	if err != nil {
		return ct == ""
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"), mt == "text/plain":
		return true
	}
	return false
}

// addWarnings adds the translator's warnings as Warning headers, written as
// the API server writes its own.
func addWarnings(h http.Header, warnings []string) {
	for _, msg := range warnings {
		v, err := utilnet.NewWarningHeader(299, "-", msg)
		if err != nil {
			v = fmt.Sprintf("299 - %q", msg)
		}
		h.Add("Warning", v)
	}
}

// jsonAnswer reports whether an answer is labelled as JSON.
func jsonAnswer(ct string) bool {
	mt, _, err := translate.ParseMediaType(ct)
	return err == nil && (mt == translate.MediaJSON || strings.HasSuffix(mt, "+json"))
}

// copyFlushing copies a streamed body (logs, proxied services) and flushes
// after every read, so that `logs -f` shows lines as they come.
func copyFlushing(w http.ResponseWriter, body io.Reader) {
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32*1024)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if f != nil {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// translateStatus is translate.ToStatus (where a local variable shadows the
// package).
func translateStatus(err error) *metav1.Status { return translate.ToStatus(err) }
