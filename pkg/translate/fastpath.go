package translate

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// topKeys returns the top-level fields the rule reads or writes: apiVersion,
// metadata and the first segment of every cross reference. Everything else
// of an object is copied through as raw bytes.
func (r *KindRule) topKeys() map[string]bool {
	keys := map[string]bool{"apiVersion": true, "metadata": true, "kind": true}
	for _, ref := range r.Refs {
		first, _, _ := strings.Cut(ref.Field, ".")
		keys[strings.TrimSuffix(first, "[]")] = true
	}
	return keys
}

var topKeysCache sync.Map // *KindRule → map[string]bool

func cachedTopKeys(r *KindRule) map[string]bool {
	if v, ok := topKeysCache.Load(r); ok {
		return v.(map[string]bool)
	}
	keys := r.topKeys()
	if _, builtin := kindsByResource[r.Resource]; builtin {
		topKeysCache.Store(r, keys)
	}
	return keys
}

// objectOutRaw translates one upstream object given as JSON and appends the
// result to buf. Only the fields the rule touches are decoded; the others
// (a ConfigMap's data, a Pod's status, ...) are copied byte for byte, in
// their original order.
func (t *Translator) objectOutRaw(rule *KindRule, raw []byte, buf *bytes.Buffer) error {
	want := cachedTopKeys(rule)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	fields := make([]rawField, 0, 8)
	partial := make(map[string]any, len(want))
	for dec.More() {
		k, err := stringToken(dec)
		if err != nil {
			return err
		}
		if want[k] {
			var v any
			if err := dec.Decode(&v); err != nil {
				return badRequest("malformed upstream object: %w", err)
			}
			partial[k] = v
			fields = append(fields, rawField{key: k})
			continue
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return badRequest("malformed upstream object: %w", err)
		}
		fields = append(fields, rawField{key: k, raw: v})
	}
	if kind, _ := partial["kind"].(string); kind == "Table" || kind == "Status" || hasItems(fields) {
		var doc map[string]any
		if err := decodeJSON(raw, &doc); err != nil {
			return err
		}
		if err := t.TranslateDocument(rule, doc); err != nil {
			return err
		}
		return encodeJSON(buf, doc)
	}
	if err := t.objectOut(rule, partial); err != nil {
		return err
	}
	buf.WriteByte('{')
	first := true
	emit := func(k string) {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeKey(buf, k)
	}
	for _, f := range fields {
		if f.raw != nil {
			emit(f.key)
			buf.Write(f.raw)
			continue
		}
		v, ok := partial[f.key]
		if !ok {
			continue // removed by the translation
		}
		emit(f.key)
		if err := encodeJSON(buf, v); err != nil {
			return err
		}
		delete(partial, f.key)
	}
	for _, k := range sortedKeys(partial) { // fields the translation added
		emit(k)
		if err := encodeJSON(buf, partial[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// rawField is a top-level field of an object: raw bytes, or (raw == nil) a
// field decoded for translation.
type rawField struct {
	key string
	raw json.RawMessage
}

func hasItems(fields []rawField) bool {
	for _, f := range fields {
		if f.key == "items" {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
