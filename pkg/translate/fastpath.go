package translate

import (
	"bytes"
	"reflect"
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
// result to buf. Only the fields the rule touches are decoded — at the top
// level the rule's keys, inside metadata the keys metadataOut reads — and the
// others (a ConfigMap's data, a Pod's status, uid, resourceVersion, ...) are
// copied byte for byte, in their original order.
func (t *Translator) objectOutRaw(rule *KindRule, raw []byte, buf *bytes.Buffer) error {
	if done, err := t.objectOutNamespaced(rule, raw, buf); done {
		return err
	}
	return t.objectOutFields(rule, raw, buf)
}

// objectOutFields is objectOutRaw without the namespace-only fast path.
func (t *Translator) objectOutFields(rule *KindRule, raw []byte, buf *bytes.Buffer) error {
	want := cachedTopKeys(rule)
	fields := make([]rawField, 0, 8)
	partial := make(map[string]any, len(want))
	var meta *rawObject
	err := forEachField(raw, func(k string, v []byte) error {
		switch {
		case k == "metadata" && len(v) > 0 && v[0] == '{':
			m, err := t.decodeMetadata(v, rule.HasPodSpecs())
			if err != nil {
				return err
			}
			meta = m
			partial[k] = m.partial
			fields = append(fields, rawField{key: k})
		case want[k]:
			val, err := decodeAny(v)
			if err != nil {
				return err
			}
			partial[k] = val
			fields = append(fields, rawField{key: k})
		default:
			fields = append(fields, rawField{key: k, raw: v})
		}
		return nil
	})
	if err != nil {
		return badRequest("malformed upstream object: %v", err)
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
	return writeRawObject(buf, fields, partial, func(k string, v any) (bool, error) {
		if m, ok := v.(map[string]any); ok && k == "metadata" && meta != nil && sameMap(m, meta.partial) {
			return true, writeRawObject(buf, meta.fields, meta.partial, nil)
		}
		return false, nil
	})
}

// metadataKeys are the metadata fields metadataOut reads or writes; the
// others are copied through.
var metadataKeys = map[string]bool{"name": true, "namespace": true, "generateName": true,
	"labels": true, "ownerReferences": true, "managedFields": true}

// rawObject is a partly decoded object: the decoded fields in partial, all
// fields in order in fields.
type rawObject struct {
	fields  []rawField
	partial map[string]any
}

// decodeMetadata decodes the metadata fields that translation may change.
// managedFields are decoded only when they hold something to map: a
// non-built-in apiVersion or the ownership label, or, of an object with pod
// specs, fields of the injected API access.
func (t *Translator) decodeMetadata(raw []byte, podSpecs bool) (*rawObject, error) {
	m := &rawObject{fields: make([]rawField, 0, 12), partial: make(map[string]any, 6)}
	err := forEachField(raw, func(k string, v []byte) error {
		if !metadataKeys[k] || (k == "managedFields" && managedFieldsUntouched(v) && !(podSpecs && apiAccessFieldsIn(v))) {
			m.fields = append(m.fields, rawField{key: k, raw: v})
			return nil
		}
		val, err := decodeAny(v)
		if err != nil {
			return err
		}
		m.partial[k] = val
		m.fields = append(m.fields, rawField{key: k})
		return nil
	})
	return m, err
}

var (
	apiVersionKey      = []byte(`"apiVersion"`)
	apiVersionKeyValue = []byte(`"apiVersion":"`)
	tenantLabelBytes   = []byte(TenantLabel)
	// The upstream keys of KindRule.LabelKeys (there is one mapping).
	mappedLabelBytes = []byte(TenantAggregateLabelPrefix)
)

// managedFieldsUntouched reports whether outbound translation leaves these
// managedFields as they are: no ownership label nor mapped label key in
// their field sets and only
// built-in apiVersions (compact JSON, as the API server writes it).
func managedFieldsUntouched(raw []byte) bool {
	if bytes.Contains(raw, tenantLabelBytes) || bytes.Contains(raw, mappedLabelBytes) {
		return false
	}
	if bytes.Count(raw, apiVersionKey) != bytes.Count(raw, apiVersionKeyValue) {
		return false
	}
	for rest := raw; ; {
		i := bytes.Index(rest, apiVersionKeyValue)
		if i < 0 {
			return true
		}
		rest = rest[i+len(apiVersionKeyValue):]
		j := bytes.IndexAny(rest, "\\\"")
		if j < 0 || rest[j] != '"' {
			return false
		}
		if group, _, found := strings.Cut(string(rest[:j]), "/"); found && !IsSharedGroup(group) {
			return false
		}
		rest = rest[j:]
	}
}

// writeRawObject writes an object from its fields in their original order:
// raw ones as they were, decoded ones from partial (dropped if translation
// removed them), then the fields translation added, sorted. custom may write
// a decoded field itself (it returns true when it did).
func writeRawObject(buf *bytes.Buffer, fields []rawField, partial map[string]any, custom func(string, any) (bool, error)) error {
	buf.WriteByte('{')
	first := true
	emit := func(k string) {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeKey(buf, k)
	}
	written := make(map[string]bool, len(partial))
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
		written[f.key] = true
		if custom != nil {
			if done, err := custom(f.key, v); done || err != nil {
				if err != nil {
					return err
				}
				continue
			}
		}
		if err := encodeAny(buf, v); err != nil {
			return err
		}
	}
	var added []string
	for k := range partial {
		if !written[k] {
			added = append(added, k)
		}
	}
	sort.Strings(added)
	for _, k := range added { // fields the translation added
		emit(k)
		if err := encodeAny(buf, partial[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// sameMap reports whether a and b are the same map (not equal contents).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// rawField is a top-level field of an object: raw bytes, or (raw == nil) a
// field decoded for translation.
type rawField struct {
	key string
	raw []byte
}

func hasItems(fields []rawField) bool {
	for _, f := range fields {
		if f.key == "items" {
			return true
		}
	}
	return false
}
