package translate

import (
	"encoding/json"
	"fmt"
	"io"
)

// Flusher is implemented by writers that can push buffered data to the
// client (http.Flusher-like); TranslateWatch flushes after every event.
type Flusher interface{ Flush() }

// WatchEvent is one frame of a watch stream.
type WatchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// watchReadStart is the size a watch's read buffer starts at.
const watchReadStart = 512

// TranslateWatch translates an upstream JSON watch stream event by event until
// in ends: ADDED/MODIFIED/DELETED objects (or Tables) are translated and
// events about objects that are not the tenant's are dropped, ERROR events
// carry a rewritten Status, BOOKMARKs map their apiVersion. Each event is
// written with one Write and flushed at once.
func (t *Translator) TranslateWatch(rule *KindRule, in io.Reader, out io.Writer) error {
	// A watch holds its read buffer while it is open, waiting for the next
	// event (ten thousand watches on a server replica, ten thousand
	// buffers; most of an informer's watches sit idle): start at 512
	// bytes, it grows by doubling to the largest event. 4 KiB here was a
	// sixth of a replica's heap at 10 000 watches (make bench-fleet).
	s := &jsonStream{r: in, buf: make([]byte, 0, watchReadStart)}
	buf := getBuf()
	defer putBuf(buf)
	flusher, _ := out.(Flusher)
	for {
		if _, ok, err := s.peek(); err != nil {
			return badRequest("malformed watch event: %w", err)
		} else if !ok {
			return nil
		}
		frame, err := s.value()
		if err != nil {
			return badRequest("malformed watch event: %w", err)
		}
		var ev WatchEvent
		if err := forEachField(frame, func(k string, v []byte) error {
			switch k {
			case "type":
				if t, ok := plainString(v); ok {
					ev.Type = t // interned: ADDED, MODIFIED, ... are common keys
					return nil
				}
				return json.Unmarshal(v, &ev.Type)
			case "object":
				ev.Object = v
			}
			return nil
		}); err != nil {
			return badRequest("malformed watch event: %w", err)
		}
		buf.Reset()
		buf.WriteString(`{"type":`)
		appendJSONString(buf, ev.Type)
		buf.WriteString(`,"object":`)
		if ev.Type == "ERROR" {
			obj, err := t.TranslateEvent(rule, ev)
			if err != nil {
				return err
			}
			if err := encodeJSON(buf, obj); err != nil {
				return err
			}
		} else if err := t.objectOutRaw(rule, ev.Object, buf); err != nil {
			if IsNotTenants(err) {
				continue
			}
			return err
		}
		buf.WriteString("}\n")
		if _, err := out.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("writing watch event: %w", err)
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// TranslateEvent translates the object of one watch event.
func (t *Translator) TranslateEvent(rule *KindRule, ev WatchEvent) (map[string]any, error) {
	var obj map[string]any
	if err := decodeJSON(ev.Object, &obj); err != nil {
		return nil, err
	}
	if ev.Type == "ERROR" {
		t.statusOut(obj)
		return obj, nil
	}
	if err := t.TranslateDocument(rule, obj); err != nil {
		return nil, err
	}
	return obj, nil
}
