package translate

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// translateBody translates the body of a create, update, patch or delete.
func (t *Translator) translateBody(r Request, u *UpstreamRequest) error {
	if err := checkBodyHeaders(r.Header); err != nil {
		return err
	}
	ct := r.Header.Get("Content-Type")
	if u.Info.Verb == "patch" {
		body, err := t.translatePatch(u.Rule, u.Info.Subresource, ct, r.Body)
		if err != nil {
			return err
		}
		u.Body = body
		u.Header.Set("Content-Type", mediaType(ct))
		if mt := mediaType(ct); mt == MediaYAML || mt == "" {
			u.Header.Set("Content-Type", MediaApplyPatch)
		}
		return nil
	}
	if (u.Info.Verb == "create" || u.Info.Verb == "update") && u.Info.Subresource == "" && mediaType(ct) == MediaProtobuf {
		body, ok, err := t.protobufBodyIn(u.Rule, u.Info, r.Body)
		if err != nil {
			return err
		}
		if ok { // upstream in protobuf, as the client sent it
			u.Body = body
			u.Header.Set("Content-Type", MediaProtobuf)
			return nil
		}
	}
	obj, err := DecodeBody(ct, r.Body)
	if err != nil {
		return err
	}
	if u.Info.Verb == "delete" || u.Info.Verb == "deletecollection" {
		return deleteOptionsBody(obj, u)
	}
	if u.Info.Verb == "create" || u.Info.Verb == "update" {
		rule := bodyRule(u.Rule, u.Info.Subresource)
		if u.Info.Verb == "create" && u.Info.Subresource == "" {
			if err := t.checkShadow(rule, str(child(obj, "metadata"), "name")); err != nil {
				return err
			}
		}
		if err := t.objectIn(rule, obj); err != nil {
			return err
		}
	}
	body, err := marshalJSON(obj)
	if err != nil {
		return err
	}
	u.Body = body
	u.Header.Set("Content-Type", MediaJSON)
	return nil
}

// deleteOptionsBody sets u.Body to the DeleteOptions of a delete's body as
// the API server reads them (case-sensitive, unknown fields dropped), so
// that nothing else the tenant put in the body reaches the upstream.
func deleteOptionsBody(obj map[string]any, u *UpstreamRequest) error {
	data, err := marshalJSON(obj)
	if err != nil {
		return err
	}
	var opts metav1.DeleteOptions
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &opts); err != nil {
		return badRequest("the body of a delete is not DeleteOptions: %w", err)
	}
	if opts.Kind != "" && opts.Kind != "DeleteOptions" {
		return badRequest("the body of a delete must be DeleteOptions, not %s", opts.Kind)
	}
	if u.Body, err = marshalJSON(&opts); err != nil {
		return err
	}
	u.Header.Set("Content-Type", MediaJSON)
	return nil
}

// checkBodyHeaders refuses a body the translator could read differently
// from what its headers say: an encoded body (Content-Encoding; the
// translator reads bytes as they are) and several Content-Types.
func checkBodyHeaders(h http.Header) error {
	for _, ce := range h.Values("Content-Encoding") {
		if ce != "" && !strings.EqualFold(strings.TrimSpace(ce), "identity") {
			return &Error{Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
				Message: fmt.Sprintf("request bodies with Content-Encoding %q cannot be translated; send them unencoded", ce)}
		}
	}
	if len(h.Values("Content-Type")) > 1 {
		return badRequest("the request has %d Content-Type headers", len(h.Values("Content-Type")))
	}
	return nil
}

// UpstreamAccept rewrites a tenant's Accept header for the upstream when
// AcceptsProtobuf does not allow protobuf: the general path reads JSON, so
// every alternative becomes its JSON form with its parameters (as=Table,
// as=PartialObjectMetadataList, as=APIGroupDiscoveryList, ...) kept: YAML and
// wildcards, and protobuf or CBOR asking for a conversion (as=), which the
// upstream would otherwise answer with the plain object instead of the
// Table the client asked for. Plain protobuf and CBOR are dropped. client-go
// accepts a JSON answer to a protobuf request.
func UpstreamAccept(accept string) string {
	if accept == "" {
		return MediaJSON
	}
	var keep []string
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		mt, params, err := ParseMediaType(part)
		if err != nil {
			continue
		}
		switch mt {
		case MediaJSON, "application/json-seq", "*/*", "application/*", MediaYAML:
		case MediaProtobuf, "application/cbor":
			if params["as"] == "" {
				continue
			}
		default:
			continue
		}
		if mt != MediaJSON {
			_, rest, _ := strings.Cut(part, ";")
			part = MediaJSON
			if rest != "" {
				part += ";" + rest
			}
		}
		if !slices.Contains(keep, part) {
			keep = append(keep, part)
		}
	}
	if len(keep) == 0 {
		return MediaJSON
	}
	return strings.Join(keep, ", ")
}
