package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// TranslateList translates an upstream list response (or a Table, a Status,
// a single object) from in to out. List items and Table rows are decoded,
// translated and written one at a time, so memory stays bounded by the
// largest item; other top-level fields are small and kept until the first
// items/rows key. Items that are not the tenant's are dropped.
func (t *Translator) TranslateList(rule *KindRule, in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	head := map[string]any{}
	var order []string
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return err
		}
		if key == "items" || (key == "rows" && str(head, "kind") == "Table") {
			return t.streamRest(rule, dec, out, head, order, key)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return badRequest("malformed upstream response: %w", err)
		}
		head[key] = v
		order = append(order, key)
	}
	if err := t.TranslateDocument(rule, head); err != nil {
		return err
	}
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeJSON(buf, head); err != nil {
		return err
	}
	_, err := out.Write(buf.Bytes())
	return err
}

// streamRest writes the translated head, then streams the array under key and
// the remaining fields.
func (t *Translator) streamRest(rule *KindRule, dec *json.Decoder, out io.Writer, head map[string]any, order []string, key string) error {
	buf := getBuf()
	defer putBuf(buf)
	table := key == "rows"
	var nameCol, nsCol = -1, -1
	if table {
		nameCol, nsCol = tableColumns(head)
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
	if err := t.streamArray(rule, dec, out, buf, key, table, nameCol, nsCol); err != nil {
		return err
	}
	for dec.More() {
		k, err := stringToken(dec)
		if err != nil {
			return err
		}
		buf.WriteByte(',')
		if k == "items" || k == "rows" {
			if err := t.streamArray(rule, dec, out, buf, k, table, nameCol, nsCol); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return badRequest("malformed upstream response: %w", err)
		}
		writeKey(buf, k)
		buf.Write(raw)
	}
	if err := expectDelim(dec, '}'); err != nil {
		return err
	}
	buf.WriteByte('}')
	_, err := out.Write(buf.Bytes())
	return err
}

// streamArray streams one items/rows array, flushing buf to out per element.
func (t *Translator) streamArray(rule *KindRule, dec *json.Decoder, out io.Writer, buf *bytes.Buffer, key string, table bool, nameCol, nsCol int) error {
	writeKey(buf, key)
	buf.WriteByte('[')
	tok, err := dec.Token()
	if err != nil {
		return badRequest("malformed upstream response: %w", err)
	}
	if tok == nil { // "items": null
		buf.WriteByte(']')
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return badRequest("malformed upstream response: %s is not a list", key)
	}
	first := true
	var raw json.RawMessage
	for dec.More() {
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return badRequest("malformed upstream response: %w", err)
		}
		mark := buf.Len()
		if !first {
			buf.WriteByte(',')
		}
		if table {
			var row map[string]any
			if err = decodeJSON(raw, &row); err == nil {
				if err = t.rowOut(rule, row, nameCol, nsCol); err == nil {
					err = encodeJSON(buf, row)
				}
			}
		} else {
			err = t.objectOutRaw(rule, raw, buf)
		}
		if IsNotTenants(err) {
			buf.Truncate(mark)
			continue
		}
		if err != nil {
			return err
		}
		first = false
		if buf.Len() > 32<<10 {
			if _, err := out.Write(buf.Bytes()); err != nil {
				return fmt.Errorf("writing response: %w", err)
			}
			buf.Reset()
		}
	}
	if _, err := dec.Token(); err != nil {
		return badRequest("malformed upstream response: %w", err)
	}
	buf.WriteByte(']')
	return nil
}

func writeKey(buf *bytes.Buffer, k string) {
	b, _ := json.Marshal(k)
	buf.Write(b)
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
