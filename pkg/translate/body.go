package translate

import (
	"strings"
)

// translateBody translates the body of a create, update, patch or delete.
func (t *Translator) translateBody(r Request, u *UpstreamRequest) error {
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
	if u.Info.Verb == "create" || u.Info.Verb == "update" {
		rule := bodyRule(u.Rule, u.Info.Subresource)
		if u.Info.Verb == "create" && u.Info.Subresource == "" {
			if err := t.checkShadow(rule, str(child(obj, "metadata"), "name")); err != nil {
				return err
			}
		}
		if u.Info.Subresource == "" {
			if err := t.completeIn(rule, obj); err != nil {
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

// UpstreamAccept rewrites a tenant's Accept header for the upstream when
// AcceptsProtobuf does not allow protobuf: the general path reads JSON, so
// protobuf and CBOR are dropped while JSON alternatives (with their as=Table
// / as=APIGroupDiscoveryList parameters) are kept. client-go accepts a JSON
// answer to a protobuf request.
func UpstreamAccept(accept string) string {
	if accept == "" {
		return MediaJSON
	}
	var keep []string
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case MediaJSON, "application/json-seq", "*/*", "application/*", MediaYAML:
			if mt != MediaJSON {
				part = strings.Replace(part, mt, MediaJSON, 1)
			}
			keep = append(keep, strings.TrimSpace(part))
		}
	}
	if len(keep) == 0 {
		return MediaJSON
	}
	return strings.Join(keep, ", ")
}
