package localproxy

import (
	"net/http"
	"strings"

	kjson "sigs.k8s.io/json"

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

// record fills in o from the upstream request u (nil: refused before
// translation), the tenant's request r and body, and the answer's code.
func (o *Outcome) record(u *translate.UpstreamRequest, r *http.Request, body []byte, code int) {
	o.Code = code
	if u == nil {
		return
	}
	o.Tenant, o.UpstreamMethod, o.UpstreamPath = u.Info, u.Method, u.Path
	switch {
	case u.Info.Verb != "create" || u.Info.Name != "":
	case u.Created.Read: // the translator read them, decoding the body
		o.Created, o.UpstreamCreated = u.Created.Tenant, u.Created.Upstream
	default: // a protobuf body, translated without decoding it
		o.Created = bodyName(r.Header.Get("Content-Type"), body)
		o.UpstreamCreated = bodyName(u.Header.Get("Content-Type"), u.Body)
	}
}

// bodyName is metadata.name (or generateName) of a request body, "" when
// the body holds none or cannot be read. A JSON body is read for these two
// fields only (jsonBodyName), a protobuf body for its metadata only
// (translate.ProtobufObjectMeta), without decoding the whole object.
func bodyName(contentType string, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	if isJSON(contentType) {
		return jsonBodyName(body)
	}
	if meta, ok := translate.ProtobufObjectMeta(contentType, body); ok {
		if meta.Name != "" {
			return meta.Name
		}
		return meta.GenerateName
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

// isJSON reports whether a Content-Type is plain JSON, the only media type
// jsonBodyName reads.
func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), translate.MediaJSON)
}

// jsonBodyName reads what bodyName does of a JSON body: case-sensitive
// keys, the last of a repeated key, a name that is no string ignored.
func jsonBodyName(body []byte) string {
	var obj struct {
		Metadata nameFields `json:"metadata"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &obj); err != nil {
		return ""
	}
	if name, _ := obj.Metadata.Name.(string); name != "" {
		return name
	}
	name, _ := obj.Metadata.GenerateName.(string)
	return name
}

// nameFields are the fields of metadata jsonBodyName reads.
type nameFields struct {
	Name         any `json:"name"`
	GenerateName any `json:"generateName"`
}

// UnmarshalJSON replaces what an earlier metadata of the same body set, as
// a repeated key's last value replaces the others.
func (n *nameFields) UnmarshalJSON(b []byte) error {
	type plain nameFields
	*n = nameFields{}
	return kjson.UnmarshalCaseSensitivePreserveInts(b, (*plain)(n))
}

// Upstream is the upstream side of the request (upstream names), parsed
// from UpstreamPath.
func (o *Outcome) Upstream() translate.RequestInfo {
	if o.UpstreamPath == "" {
		return translate.RequestInfo{}
	}
	return translate.ParseRequestInfo(o.UpstreamMethod, o.UpstreamPath, nil)
}
