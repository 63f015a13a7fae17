package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// protobufMessage translates the raw message of an object of rule's kind or
// of a list of them, n bytes from body, into msg.
func (t *Translator) protobufMessage(rule *KindRule, gvk schema.GroupVersionKind, body *protoReader, n int64, msg io.Writer) error {
	switch gvk.Kind {
	case rule.Kind:
		item, err := readN(body, n)
		if err != nil {
			return err
		}
		out, err := t.protobufItemOut(rule, gvk, item, nil)
		if err != nil {
			return err
		}
		_, err = msg.Write(out)
		return err
	case rule.Kind + "List":
		return t.protobufList(rule, gvk.GroupVersion().WithKind(rule.Kind), body, msg)
	}
	return malformed(fmt.Errorf("a protobuf %s answering a request for %s", gvk.Kind, rule.Resource.String()))
}

// protobufList streams a list message: its ListMeta as it is, then every
// item translated (or dropped when it is not the tenant's).
func (t *Translator) protobufList(rule *KindRule, itemGVK schema.GroupVersionKind, r *protoReader, msg io.Writer) error {
	buf := getBuf()
	defer putBuf(buf)
	var item, out []byte
	for {
		num, typ, err := readTag(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if typ != protowire.BytesType {
			return malformed(fmt.Errorf("protobuf list field %d has wire type %d", num, typ))
		}
		n, err := readLen(r)
		if err != nil {
			return err
		}
		if item, err = readInto(r, n, item); err != nil {
			return err
		}
		field := item
		if num == listItems {
			out, err = t.protobufItemOut(rule, itemGVK, item, out[:0])
			if IsNotTenants(err) {
				continue
			}
			if err != nil {
				return err
			}
			field = out
		}
		buf.Write(protowire.AppendVarint(protowire.AppendTag(buf.AvailableBuffer(), num, typ), uint64(len(field))))
		buf.Write(field)
		if buf.Len() > 32<<10 {
			if _, err := msg.Write(buf.Bytes()); err != nil {
				return fmt.Errorf("writing response: %w", err)
			}
			buf.Reset()
		}
	}
	_, err := msg.Write(buf.Bytes())
	return err
}

// protobufItemOut appends the translated message of one object to out.
func (t *Translator) protobufItemOut(rule *KindRule, gvk schema.GroupVersionKind, item, out []byte) ([]byte, error) {
	if res, done, err := t.protobufItemNamespaced(rule, item, out); done {
		return res, err
	}
	return t.protobufItemGeneral(rule, gvk, item, out)
}

// protobufItemGeneral translates an object the way objectOutRaw translates
// its JSON: decoded into its Go type with client-go's scheme, translated as
// JSON and encoded back.
func (t *Translator) protobufItemGeneral(rule *KindRule, gvk schema.GroupVersionKind, item, out []byte) ([]byte, error) {
	obj, err := newProtobufObject(gvk)
	if err != nil {
		return nil, err
	}
	if err := obj.Unmarshal(item); err != nil {
		return nil, malformed(fmt.Errorf("protobuf %s: %w", gvk.Kind, err))
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s as JSON: %w", gvk.Kind, err)
	}
	buf := getBuf()
	defer putBuf(buf)
	if err := t.objectOutRaw(rule, j, buf); err != nil {
		return nil, err
	}
	translated, err := newProtobufObject(gvk)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(buf.Bytes(), translated); err != nil {
		return nil, fmt.Errorf("decoding the translated %s: %w", gvk.Kind, err)
	}
	size := translated.Size()
	start := len(out)
	out = append(out, make([]byte, size)...)
	if _, err := translated.MarshalToSizedBuffer(out[start:]); err != nil {
		return nil, fmt.Errorf("encoding %s as protobuf: %w", gvk.Kind, err)
	}
	return out, nil
}

// protobufObject is a built-in API object with generated protobuf code.
type protobufObject interface {
	runtime.Object
	Unmarshal(data []byte) error
	Size() int
	MarshalToSizedBuffer(data []byte) (int, error)
}

// newProtobufObject returns a new object of gvk from client-go's scheme.
func newProtobufObject(gvk schema.GroupVersionKind) (protobufObject, error) {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("no Go type for %s: %w", gvk, err)
	}
	p, ok := obj.(protobufObject)
	if !ok {
		return nil, fmt.Errorf("%s has no protobuf encoding", gvk)
	}
	return p, nil
}

// protobufStatus reads a protobuf Status of n bytes and returns it as the
// JSON Status the tenant sees.
func (t *Translator) protobufStatus(rule *KindRule, body io.Reader, n int64) ([]byte, error) {
	raw, err := readN(body, n)
	if err != nil {
		return nil, err
	}
	status, err := newProtobufObject(schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	if err != nil {
		return nil, err
	}
	if err := status.Unmarshal(raw); err != nil {
		return nil, malformed(fmt.Errorf("protobuf Status: %w", err))
	}
	status.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	j, err := json.Marshal(status)
	if err != nil {
		return nil, fmt.Errorf("encoding Status as JSON: %w", err)
	}
	var out bytes.Buffer
	if err := t.TranslateList(rule, bytes.NewReader(j), &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// protobufItemNamespaced is objectOutNamespaced for a protobuf object: when
// the namespace is provably the only thing translation changes, it rewrites
// that one field (and the lengths around it) and copies every other byte.
// done is false when the general path must decide.
func (t *Translator) protobufItemNamespaced(rule *KindRule, item, out []byte) (res []byte, done bool, err error) {
	if rule.Treatment != Namespaced || len(rule.Refs) != 0 || rule.NameIsNamespace {
		return out, false, nil
	}
	metaStart, metaEnd := -1, -1
	var meta []byte
	err = eachField(item, func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error {
		if num != objectMeta {
			return nil
		}
		if typ != protowire.BytesType || metaStart >= 0 {
			return errors.New("not one metadata message")
		}
		meta, metaStart, metaEnd = val, start, end
		return nil
	})
	if err != nil { // the general path reports malformed input
		return out, false, nil
	}
	if metaStart < 0 { // no metadata, so no namespace: nothing to translate
		return append(out, item...), true, nil
	}
	if bytes.Contains(meta, tenantLabelBytes) {
		return out, false, nil
	}
	nsStart, nsEnd := -1, -1
	var ns, name string
	simple := true
	err = eachField(meta, func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error {
		switch num {
		case metaNamespace:
			if typ != protowire.BytesType || nsStart >= 0 {
				simple = false
				return nil
			}
			ns, nsStart, nsEnd = string(val), start, end
		case metaName:
			name = string(val)
		case metaOwners:
			simple = false
		case metaManaged:
			simple = simple && typ == protowire.BytesType && managedEntryBuiltin(val)
		}
		return nil
	})
	if err != nil || !simple {
		return out, false, nil
	}
	if nsStart < 0 || ns == "" {
		return append(out, item...), true, nil
	}
	local, ok := t.tenant.TenantNamespace(ns)
	if !ok {
		return out, true, notFound(rule.Resource, name)
	}
	metaLen := len(meta) - (nsEnd - nsStart) + protowire.SizeTag(metaNamespace) + protowire.SizeBytes(len(local))
	out = append(out, item[:metaStart]...)
	out = protowire.AppendTag(out, objectMeta, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(metaLen))
	out = append(out, meta[:nsStart]...)
	out = protowire.AppendTag(out, metaNamespace, protowire.BytesType)
	out = protowire.AppendString(out, local)
	out = append(out, meta[nsEnd:]...)
	return append(out, item[metaEnd:]...), true, nil
}

// managedEntryBuiltin reports whether a ManagedFieldsEntry names a built-in
// apiVersion (the only ones the fast path leaves alone).
func managedEntryBuiltin(entry []byte) bool {
	builtin := true
	err := eachField(entry, func(num protowire.Number, typ protowire.Type, val []byte, _, _ int) error {
		if num == managedFieldsAPI {
			group, _, found := strings.Cut(string(val), "/")
			builtin = builtin && typ == protowire.BytesType && (!found || IsBuiltinGroup(group))
		}
		return nil
	})
	return err == nil && builtin
}
