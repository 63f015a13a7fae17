package translate

import (
	"encoding/json"
	"errors"
	"strconv"
)

// decodeAny decodes one JSON value into the generic form decodeJSON gives
// (map[string]any, []any, string, bool, nil, json.Number) without
// reflection. Small values on the hot paths (metadata fields of every list
// item and watch event) are decoded this way; it is several times cheaper than
// a json.Decoder per value.
func decodeAny(b []byte) (any, error) {
	d := anyDecoder{b: b}
	v, err := d.value()
	if err != nil {
		return nil, badRequest("malformed JSON: %w", err)
	}
	if d.i = skipSpace(d.b, d.i); d.i != len(d.b) {
		return nil, badRequest("malformed JSON: trailing data after a value")
	}
	return v, nil
}

// maxJSONDepth bounds the nesting decodeAny accepts, as encoding/json does:
// a request body of 64 MiB of '[' must be a 400, not a stack overflow.
const maxJSONDepth = 10000

type anyDecoder struct {
	b     []byte
	i     int
	depth int
	// reps, when set, notes the keys objects repeat (repeats.go).
	reps *repeats
}

// nest enters an object or array.
func (d *anyDecoder) nest() error {
	if d.depth++; d.depth > maxJSONDepth {
		return errors.New("exceeded the maximum nesting depth")
	}
	return nil
}

func (d *anyDecoder) value() (any, error) {
	d.i = skipSpace(d.b, d.i)
	if d.i >= len(d.b) {
		return nil, errIncomplete
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	default:
		return nil, errors.New("invalid character " + strconv.QuoteRune(rune(c)))
	}
}

func (d *anyDecoder) object() (any, error) {
	if err := d.nest(); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	m := make(map[string]any, 4)
	var keys *objectKeys
	if d.reps != nil {
		keys = d.reps.object(m)
	}
	d.i++
	if d.i = skipSpace(d.b, d.i); d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.i = skipSpace(d.b, d.i)
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errors.New("expected a key")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.i = skipSpace(d.b, d.i); d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errors.New("expected ':' after a key")
		}
		d.i++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		n := len(m)
		m[k] = v
		if d.reps != nil {
			d.reps.key(keys, k, len(m) == n) // no new entry: a repeated key
		}
		if d.i = skipSpace(d.b, d.i); d.i >= len(d.b) {
			return nil, errIncomplete
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, errors.New("expected ',' or '}' in an object")
		}
	}
}

func (d *anyDecoder) array() (any, error) {
	if err := d.nest(); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	a := make([]any, 0, 4)
	d.i++
	if d.i = skipSpace(d.b, d.i); d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if d.i = skipSpace(d.b, d.i); d.i >= len(d.b) {
			return nil, errIncomplete
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, errors.New("expected ',' or ']' in an array")
		}
	}
}

func (d *anyDecoder) str() (string, error) {
	end, err := skipString(d.b, d.i)
	if err != nil {
		return "", err
	}
	raw := d.b[d.i:end]
	d.i = end
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			// Escapes, control characters and non-ASCII (which must be
			// valid UTF-8) go the careful way.
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return string(raw[1 : len(raw)-1]), nil
}

func (d *anyDecoder) literal(lit string) error {
	if len(d.b)-d.i < len(lit) || string(d.b[d.i:d.i+len(lit)]) != lit {
		return errors.New("invalid literal")
	}
	d.i += len(lit)
	return nil
}

func (d *anyDecoder) number() (any, error) {
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	n := json.Number(d.b[start:d.i])
	if _, err := strconv.ParseFloat(string(n), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, errors.New("invalid number " + strconv.Quote(string(n)))
	}
	return n, nil
}
