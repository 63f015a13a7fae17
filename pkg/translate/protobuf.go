package translate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// Kubernetes protobuf documents are the magic bytes "k8s\x00" followed by a
// runtime.Unknown message: TypeMeta (field 1), the object's own message as
// bytes (field 2, "raw"), contentEncoding (3) and contentType (4). A list's
// message holds its ListMeta in field 1 and one item per field 2.
var protobufMagic = []byte("k8s\x00")

// Field numbers of the messages the translator walks.
const (
	unknownTypeMeta    protowire.Number = 1
	unknownRaw         protowire.Number = 2
	unknownEncoding    protowire.Number = 3
	unknownContentType protowire.Number = 4
	typeMetaVersion    protowire.Number = 1
	typeMetaKind       protowire.Number = 2
	listItems          protowire.Number = 2
	objectMeta         protowire.Number = 1
	metaName           protowire.Number = 1
	metaNamespace      protowire.Number = 3
	metaOwners         protowire.Number = 13
	metaManaged        protowire.Number = 17
	managedFieldsAPI   protowire.Number = 3
)

// maxProtobufField bounds one field of an upstream protobuf answer read into
// memory (an object, an item, the TypeMeta); the API server's own limit on an
// object is a few MiB.
const maxProtobufField = 64 << 20

// ProtobufAnswer frames a translated protobuf answer. TranslateProtobuf writes
// the translated message, whose length is only known at its end, to a
// writer; the answer is Head(length), the message, then Tail(). When the
// upstream answered with a Status instead, JSON holds the whole answer as
// application/json (in the tenant's terms) and nothing was written.
type ProtobufAnswer struct {
	// JSON, when not nil, is the answer to send as application/json instead.
	JSON     []byte
	typeMeta []byte // the runtime.Unknown's TypeMeta field, tag included
	tail     []byte // the runtime.Unknown's fields after raw, as read
}

// Head returns the bytes before a translated message of msgLen bytes.
func (a *ProtobufAnswer) Head(msgLen int64) []byte {
	b := append([]byte(nil), protobufMagic...)
	b = append(b, a.typeMeta...)
	b = protowire.AppendTag(b, unknownRaw, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(msgLen))
}

// Tail returns the bytes after the translated message.
func (a *ProtobufAnswer) Tail() []byte { return a.tail }

// Len returns the length of the whole answer around a message of msgLen bytes.
func (a *ProtobufAnswer) Len(msgLen int64) int64 {
	return int64(len(a.Head(msgLen))) + msgLen + int64(len(a.tail))
}

// protobufVerbs are the verbs whose answer is an object, a list of them or
// a stream of watch events about them.
var protobufVerbs = map[string]bool{"get": true, "list": true, "watch": true, "create": true, "update": true, "patch": true}

// AcceptsProtobuf reports whether the upstream may answer the request in
// protobuf (see TranslateProtobuf and TranslateProtobufWatch): a get, list,
// watch, create, update or patch, in one namespace, of a built-in kind that
// client-go's scheme knows and whose only translation is its namespace
// (namespaceOnly), for a client whose first choice is plain protobuf (not a
// Table). Everything else the upstream answers in JSON.
func AcceptsProtobuf(rule *KindRule, info RequestInfo, plan Plan, accept string) bool {
	if !namespaceOnly(rule) || (plan != PlanForward && plan != PlanPatchInView) || info.Subresource != "" || info.Namespace == "" ||
		!protobufVerbs[info.Verb] || !IsSharedGroup(rule.Resource.Group) {
		return false
	}
	first, _, _ := strings.Cut(accept, ",")
	mt, params, err := ParseMediaType(strings.TrimSpace(first))
	if err != nil || mt != MediaProtobuf || len(params) != 0 {
		return false
	}
	gv := schema.GroupVersion{Group: rule.Resource.Group, Version: info.APIVersion}
	return scheme.Scheme.Recognizes(gv.WithKind(rule.Kind)) && scheme.Scheme.Recognizes(gv.WithKind(rule.Kind+"List"))
}

// TranslateProtobuf translates an upstream protobuf answer (an object or a
// list of rule's kind, or a Status) to a request AcceptsProtobuf allowed. It reads the answer as a
// stream and writes the translated object or list message to msg, one item
// at a time, so memory stays bounded by the largest item; the caller frames
// msg with the returned answer's Head and Tail. Items that are not the
// tenant's are dropped, as in TranslateList.
func (t *Translator) TranslateProtobuf(rule *KindRule, in io.Reader, msg io.Writer) (*ProtobufAnswer, error) {
	br := protoReaders.Get().(*bufio.Reader)
	br.Reset(in)
	defer func() { br.Reset(nil); protoReaders.Put(br) }()
	r := &protoReader{r: br, n: -1}
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || !bytes.Equal(magic[:], protobufMagic) {
		return nil, malformed(errors.New("not a Kubernetes protobuf document"))
	}
	answer := &ProtobufAnswer{}
	var gvk schema.GroupVersionKind
	sawRaw := false
	for {
		num, typ, err := readTag(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if typ != protowire.BytesType {
			return nil, malformed(fmt.Errorf("protobuf field %d has wire type %d", num, typ))
		}
		n, err := readLen(r)
		if err != nil {
			return nil, err
		}
		switch {
		case num == unknownRaw && !sawRaw:
			sawRaw = true
			if gvk.Kind == "" {
				return nil, malformed(errors.New("protobuf raw before its TypeMeta"))
			}
			body := &protoReader{r: br, n: n}
			if gvk.Kind == "Status" {
				answer.JSON, err = t.protobufStatus(rule, body, n)
			} else {
				err = t.protobufMessage(rule, gvk, body, n, msg)
			}
			if err != nil {
				return nil, err
			}
			if body.n != 0 {
				return nil, malformed(errors.New("protobuf message ends early"))
			}
		default:
			field, err := readN(r, n)
			if err != nil {
				return nil, err
			}
			field = protowire.AppendBytes(protowire.AppendTag(nil, num, typ), field)
			switch {
			case num == unknownTypeMeta && !sawRaw && gvk.Kind == "":
				if gvk, err = protobufTypeMeta(field); err != nil {
					return nil, err
				}
				answer.typeMeta = field
			case sawRaw && num == unknownEncoding && n > 0:
				return nil, malformed(errors.New("protobuf answer with a content encoding"))
			case sawRaw:
				answer.tail = append(answer.tail, field...)
			default:
				return nil, malformed(fmt.Errorf("unexpected protobuf field %d", num))
			}
		}
	}
	if !sawRaw {
		return nil, malformed(errors.New("protobuf document without a message"))
	}
	return answer, nil
}

// protobufTypeMeta reads the group, version and kind of a TypeMeta field.
func protobufTypeMeta(field []byte) (schema.GroupVersionKind, error) {
	_, _, n := protowire.ConsumeTag(field)
	v, _ := protowire.ConsumeBytes(field[n:])
	var apiVersion, kind string
	err := eachField(v, func(num protowire.Number, typ protowire.Type, val []byte, _, _ int) error {
		switch {
		case num == typeMetaVersion && typ == protowire.BytesType:
			apiVersion = string(val)
		case num == typeMetaKind && typ == protowire.BytesType:
			kind = string(val)
		}
		return nil
	})
	if err != nil || kind == "" {
		return schema.GroupVersionKind{}, malformed(errors.New("protobuf TypeMeta without a kind"))
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}, malformed(err)
	}
	return gv.WithKind(kind), nil
}
