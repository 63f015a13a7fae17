package translate

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
)

// protobufBodyIn translates the protobuf body of a create or update of a
// namespace-only kind (namespaceOnly) without decoding it: the namespace in
// its metadata, if any, is mapped upstream and every other byte is kept, so
// the upstream gets protobuf as the client sent it. ok is false, with no
// error, when the general path (DecodeBody, objectIn) must translate the
// body instead: another kind than the URL's, a tenant label, owner
// references, content encodings, a repeated field, or anything that does
// not parse. The general path decodes the body as the API server does (the
// last of a repeated field wins) and forwards JSON it encoded itself.
func (t *Translator) protobufBodyIn(rule *KindRule, info RequestInfo, body []byte) (out []byte, ok bool, err error) {
	if !namespaceOnly(rule) || !bytes.HasPrefix(body, protobufMagic) {
		return nil, false, nil
	}
	var typeMeta, raw, tail []byte
	sawRaw, simple := false, true
	var sawTail [unknownContentType + 1]bool
	err = eachField(body[len(protobufMagic):], func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error {
		field := body[len(protobufMagic)+start : len(protobufMagic)+end]
		switch {
		case typ != protowire.BytesType:
			simple = false
		case num == unknownTypeMeta && typeMeta == nil && !sawRaw:
			typeMeta = field
		case num == unknownRaw && !sawRaw:
			raw, sawRaw = val, true
		case num == unknownEncoding && len(val) > 0:
			simple = false
		case sawRaw && (num == unknownEncoding || num == unknownContentType) && !sawTail[num]:
			// Each at most once: protobuf keeps the last of a repeated
			// field, so a second raw or typeMeta (or anything else) after
			// the translated one would be what the API server decodes.
			sawTail[num] = true
			tail = append(tail, field...)
		default:
			simple = false
		}
		return nil
	})
	if err != nil || !simple || typeMeta == nil || !sawRaw {
		return nil, false, nil
	}
	gvk, err := protobufTypeMeta(typeMeta)
	if err != nil || gvk.Kind != rule.Kind || gvk.Group != rule.Resource.Group || gvk.Version != info.APIVersion {
		return nil, false, nil
	}
	translated, done, err := rewriteNamespace(raw, nil, func(ns, _ []byte) (string, error) {
		return t.tenant.UpstreamNamespace(string(ns))
	})
	if !done {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	out = make([]byte, 0, len(body)+16)
	out = append(out, protobufMagic...)
	out = append(out, typeMeta...)
	out = protowire.AppendTag(out, unknownRaw, protowire.BytesType)
	out = protowire.AppendBytes(out, translated)
	return append(out, tail...), true, nil
}
