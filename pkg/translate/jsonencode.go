package translate

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// encodeAny appends the JSON of a generic value (what decodeAny or
// decodeJSON produce) to buf, as encodeJSON would write it (map keys sorted,
// no HTML escaping), without reflection. Other types go to encodeJSON.
func encodeAny(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case string:
		appendJSONString(buf, v)
	case bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		if v == "" {
			buf.WriteByte('0')
		} else {
			buf.WriteString(string(v))
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeKey(buf, k)
			if err := encodeAny(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeAny(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		return encodeJSON(buf, v)
	}
	return nil
}

// appendJSONString appends s as a JSON string, escaped as encoding/json does
// with HTML escaping off.
func appendJSONString(buf *bytes.Buffer, s string) {
	safe := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			safe = false
			break
		}
	}
	if safe {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')
		return
	}
	_ = encodeJSON(buf, s) // cannot fail for a string
}
