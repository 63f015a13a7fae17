package translate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Field numbers of metav1.WatchEvent and runtime.RawExtension.
const (
	watchEventType   protowire.Number = 1
	watchEventObject protowire.Number = 2
	rawExtensionRaw  protowire.Number = 1
)

// TranslateProtobufWatch translates an upstream protobuf watch stream
// (application/vnd.kubernetes.protobuf;stream=watch: frames of a 4-byte
// big-endian length and a metav1.WatchEvent whose object is a protobuf
// document) event by event until in ends, as TranslateWatch does for JSON:
// objects are translated, events about objects that are not the tenant's
// are dropped, ERROR events carry a translated Status. Each event is written
// with one Write and flushed at once.
func (t *Translator) TranslateProtobufWatch(rule *KindRule, in io.Reader, out io.Writer) error {
	flusher, _ := out.(Flusher)
	var head [4]byte
	var frame, translated []byte
	for {
		if _, err := io.ReadFull(in, head[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return malformed(fmt.Errorf("protobuf watch frame: %w", err))
		}
		var err error
		if frame, err = readInto(in, int64(binary.BigEndian.Uint32(head[:])), frame); err != nil {
			return err
		}
		// Room for the length, then the event.
		translated, err = t.protobufWatchEvent(rule, frame, append(translated[:0], 0, 0, 0, 0))
		if IsNotTenants(err) {
			continue
		}
		if err != nil {
			return err
		}
		binary.BigEndian.PutUint32(translated, uint32(len(translated)-4))
		if _, err := out.Write(translated); err != nil {
			return fmt.Errorf("writing watch event: %w", err)
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// protobufWatchEvent appends the translated WatchEvent message to out.
func (t *Translator) protobufWatchEvent(rule *KindRule, event, out []byte) ([]byte, error) {
	var eventType string
	err := eachField(event, func(num protowire.Number, typ protowire.Type, val []byte, _, _ int) error {
		if num == watchEventType && typ == protowire.BytesType {
			eventType = string(val)
		}
		return nil
	})
	if err != nil {
		return nil, malformed(fmt.Errorf("protobuf watch event: %w", err))
	}
	err = eachField(event, func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error {
		if num != watchEventObject || typ != protowire.BytesType {
			out = append(out, event[start:end]...)
			return nil
		}
		var doc []byte
		if err := eachField(val, func(num protowire.Number, typ protowire.Type, v []byte, _, _ int) error {
			if num == rawExtensionRaw && typ == protowire.BytesType {
				doc = v
			}
			return nil
		}); err != nil {
			return malformed(fmt.Errorf("protobuf watch event object: %w", err))
		}
		translated, err := t.protobufEventObject(rule, eventType, doc)
		if err != nil {
			return err
		}
		out = protowire.AppendTag(out, watchEventObject, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(protowire.SizeTag(rawExtensionRaw)+protowire.SizeBytes(len(translated))))
		out = protowire.AppendTag(out, rawExtensionRaw, protowire.BytesType)
		out = protowire.AppendBytes(out, translated)
		return nil
	})
	return out, err
}

// protobufEventObject translates the protobuf document of one event's
// object: an object of rule's kind, or a Status in an ERROR event.
func (t *Translator) protobufEventObject(rule *KindRule, eventType string, doc []byte) ([]byte, error) {
	var msg bytes.Buffer
	answer, err := t.TranslateProtobuf(rule, bytes.NewReader(doc), &msg)
	if err != nil {
		return nil, err
	}
	if answer.JSON != nil { // a Status: back to protobuf, translated
		if eventType != "ERROR" {
			return nil, malformed(errors.New("a Status in a watch event other than ERROR"))
		}
		return encodeProtobufStatus(answer.JSON)
	}
	out := answer.Head(int64(msg.Len()))
	out = append(out, msg.Bytes()...)
	return append(out, answer.Tail()...), nil
}

// encodeProtobufStatus encodes a JSON Status as a protobuf document.
func encodeProtobufStatus(statusJSON []byte) ([]byte, error) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Status"}
	status, err := newProtobufObject(gvk)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(statusJSON, status); err != nil {
		return nil, fmt.Errorf("decoding the translated Status: %w", err)
	}
	raw := make([]byte, status.Size())
	if _, err := status.MarshalToSizedBuffer(raw); err != nil {
		return nil, fmt.Errorf("encoding Status as protobuf: %w", err)
	}
	typeMeta := protowire.AppendTag(nil, typeMetaVersion, protowire.BytesType)
	typeMeta = protowire.AppendString(typeMeta, gvk.Version)
	typeMeta = protowire.AppendTag(typeMeta, typeMetaKind, protowire.BytesType)
	typeMeta = protowire.AppendString(typeMeta, gvk.Kind)
	answer := &ProtobufAnswer{typeMeta: protowire.AppendBytes(protowire.AppendTag(nil, unknownTypeMeta, protowire.BytesType), typeMeta)}
	return append(answer.Head(int64(len(raw))), raw...), nil
}
