package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// TranslateList translates an upstream list response (or a Table, a Status,
// a single object) from in to out. List items and Table rows are read,
// translated and written one at a time, so memory stays bounded by the
// largest item; other top-level fields are small and kept until the first
// items/rows key. Items that are not the tenant's are dropped. A single
// object goes through objectOutRaw: only the fields translation touches are
// decoded, the rest is copied byte for byte.
func (t *Translator) TranslateList(rule *KindRule, in io.Reader, out io.Writer) error {
	s := newJSONStream(in)
	defer s.release()
	if err := s.expect('{'); err != nil {
		return malformed(err)
	}
	var fields []rawField
	kind := ""
	more, err := s.first('}')
	for err == nil && more {
		var key string
		if key, err = s.key(); err != nil {
			break
		}
		if key == "items" || (key == "rows" && kind == "Table") {
			head, order, err := decodeHead(fields)
			if err != nil {
				return err
			}
			return t.streamRest(rule, s, out, head, order, key)
		}
		var raw []byte
		if raw, err = s.value(); err != nil {
			break
		}
		if key == "kind" {
			if v, decErr := decodeAny(raw); decErr == nil {
				kind, _ = v.(string)
			}
		}
		fields = append(fields, rawField{key: key, raw: bytes.Clone(raw)})
		more, err = s.next('}')
	}
	if err != nil {
		return malformed(err)
	}
	buf := getBuf()
	defer putBuf(buf)
	if strings.HasSuffix(kind, "List") { // a list without items
		head, _, err := decodeHead(fields)
		if err != nil {
			return err
		}
		if err := t.TranslateDocument(rule, head); err != nil {
			return err
		}
		if err := encodeJSON(buf, head); err != nil {
			return err
		}
	} else {
		obj := getBuf()
		defer putBuf(obj)
		if err := writeRawObject(obj, fields, nil, nil); err != nil {
			return err
		}
		if err := t.objectOutRaw(rule, obj.Bytes(), buf); err != nil {
			return err
		}
	}
	_, err = out.Write(buf.Bytes())
	return err
}

// decodeHead decodes the top-level fields read before a list's items.
func decodeHead(fields []rawField) (map[string]any, []string, error) {
	head := make(map[string]any, len(fields))
	order := make([]string, 0, len(fields))
	for _, f := range fields {
		v, err := decodeAny(f.raw)
		if err != nil {
			return nil, nil, err
		}
		head[f.key] = v
		order = append(order, f.key)
	}
	return head, order, nil
}

func malformed(err error) error {
	return badRequest("malformed upstream response: %w", err)
}

// streamRest writes the translated head, then streams the array under key and
// the remaining fields.
func (t *Translator) streamRest(rule *KindRule, s *jsonStream, out io.Writer, head map[string]any, order []string, key string) error {
	buf := getBuf()
	defer putBuf(buf)
	table := key == "rows"
	cols := noColumns
	if table {
		cols = tableColumns(rule, head)
	} else if err := t.listKindOut(head); err != nil {
		return err
	}
	buf.WriteByte('{')
	for _, k := range order {
		writeKey(buf, k)
		if err := encodeJSON(buf, head[k]); err != nil {
			return err
		}
		buf.WriteByte(',')
	}
	if err := t.streamArray(rule, s, out, buf, key, table, cols); err != nil {
		return err
	}
	for {
		more, err := s.next('}')
		if err != nil {
			return malformed(err)
		}
		if !more {
			break
		}
		k, err := s.key()
		if err != nil {
			return malformed(err)
		}
		buf.WriteByte(',')
		if k == "items" || k == "rows" {
			if err := t.streamArray(rule, s, out, buf, k, table, cols); err != nil {
				return err
			}
			continue
		}
		raw, err := s.value()
		if err != nil {
			return malformed(err)
		}
		writeKey(buf, k)
		buf.Write(raw)
	}
	buf.WriteByte('}')
	_, err := out.Write(buf.Bytes())
	return err
}

// streamArray streams one items/rows array, flushing buf to out now and then.
func (t *Translator) streamArray(rule *KindRule, s *jsonStream, out io.Writer, buf *bytes.Buffer, key string, table bool, cols columns) error {
	writeKey(buf, key)
	buf.WriteByte('[')
	if _, _, err := t.streamElements(rule, s, out, buf, key, table, cols); err != nil {
		return err
	}
	buf.WriteByte(']')
	return nil
}

// streamElements reads the array (or null) under key and writes its
// elements to buf, translated and separated by commas, without the
// brackets; what is not the tenant's is dropped. Unless out is nil, buf is
// flushed to out now and then. It returns how many elements it wrote and
// how many it read.
func (t *Translator) streamElements(rule *KindRule, s *jsonStream, out io.Writer, buf *bytes.Buffer, key string, table bool, cols columns) (kept, read int64, err error) {
	c, _, err := s.peek()
	if err != nil {
		return 0, 0, malformed(err)
	}
	if c == 'n' { // "items": null
		if _, err := s.value(); err != nil {
			return 0, 0, malformed(err)
		}
		return 0, 0, nil
	}
	if c != '[' {
		return 0, 0, badRequest("malformed upstream response: %s is not a list", key)
	}
	s.pos++
	more, err := s.first(']')
	if err != nil {
		return 0, 0, malformed(err)
	}
	for more {
		raw, err := s.value()
		if err != nil {
			return kept, read, malformed(err)
		}
		read++
		mark := buf.Len()
		if kept > 0 {
			buf.WriteByte(',')
		}
		if table {
			var row map[string]any
			if err = decodeJSON(raw, &row); err == nil {
				if err = t.rowOut(rule, row, cols); err == nil {
					err = encodeJSON(buf, row)
				}
			}
		} else {
			err = t.objectOutRaw(rule, raw, buf)
		}
		switch {
		case IsNotTenants(err):
			buf.Truncate(mark)
		case err != nil:
			return kept, read, err
		default:
			kept++
		}
		if out != nil && buf.Len() > 32<<10 {
			if _, err := out.Write(buf.Bytes()); err != nil {
				return kept, read, fmt.Errorf("writing response: %w", err)
			}
			buf.Reset()
		}
		if more, err = s.next(']'); err != nil {
			return kept, read, malformed(err)
		}
	}
	return kept, read, nil
}

func writeKey(buf *bytes.Buffer, k string) {
	appendJSONString(buf, k)
	buf.WriteByte(':')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return badRequest("malformed upstream response: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return badRequest("malformed upstream response: expected %q", want)
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", badRequest("malformed upstream response: %w", err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", badRequest("malformed upstream response: expected a key")
	}
	return s, nil
}
