package localproxy

import (
	"context"
	"net/http"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Outcome is what the proxy did with one request served through
// ServeAuthenticated, for the metrics and audit log of the server in front
// of it. The upstream fields are empty when the request was refused before
// it was translated.
type Outcome struct {
	// Code is the HTTP status code the caller got.
	Code int
	// Tenant is the tenant-side request (tenant names); its zero value
	// when the request was refused before translation.
	Tenant translate.RequestInfo
	// UpstreamMethod and UpstreamPath are the translated request's.
	UpstreamMethod, UpstreamPath string
	// Created and UpstreamCreated are the names a create's body gave the
	// object (tenant-side and upstream), which its path does not hold.
	Created, UpstreamCreated string
}

type outcomeKey struct{}

// WithOutcome returns a context carrying out; ServeAuthenticated fills it in
// when the request is done.
func WithOutcome(ctx context.Context, out *Outcome) context.Context {
	return context.WithValue(ctx, outcomeKey{}, out)
}

func outcomeOf(ctx context.Context) *Outcome {
	out, _ := ctx.Value(outcomeKey{}).(*Outcome)
	return out
}

// record fills in o from the upstream request u (nil: refused before
// translation), the tenant's request r and body, and the answer's code.
func (o *Outcome) record(u *translate.UpstreamRequest, r *http.Request, body []byte, code int) {
	o.Code = code
	if u == nil {
		return
	}
	o.Tenant, o.UpstreamMethod, o.UpstreamPath = u.Info, u.Method, u.Path
	if u.Info.Verb == "create" && u.Info.Name == "" {
		o.Created = bodyName(r.Header.Get("Content-Type"), body)
		o.UpstreamCreated = bodyName(u.Header.Get("Content-Type"), u.Body)
	}
}

// bodyName is metadata.name (or generateName) of a request body, "" when
// the body holds none or cannot be read.
func bodyName(contentType string, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	obj, err := translate.DecodeBody(contentType, body)
	if err != nil {
		return ""
	}
	meta, _ := obj["metadata"].(map[string]any)
	if name, _ := meta["name"].(string); name != "" {
		return name
	}
	name, _ := meta["generateName"].(string)
	return name
}

// Upstream is the upstream side of the request (upstream names), parsed
// from UpstreamPath.
func (o *Outcome) Upstream() translate.RequestInfo {
	if o.UpstreamPath == "" {
		return translate.RequestInfo{}
	}
	return translate.ParseRequestInfo(o.UpstreamMethod, o.UpstreamPath, nil)
}
