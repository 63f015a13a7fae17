package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
