package translate

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A JSON request body may repeat a key in an object. The API server keeps
// the last occurrence, and reports the repetition as its fieldValidation
// asks: a warning (Warn, the default), a 400 naming it (Strict, with the
// unknown fields it found, in the order it met them), or nothing (Ignore).
// The translator decodes a body the same way (the last occurrence wins) and
// translates that value; so that the upstream still sees, and reports, the
// repetition, the body it forwards repeats the key as often as the tenant
// did (its occurrences side by side), each occurrence holding the
// translated value, and keeps the tenant's order of keys (keys the
// translation adds come last, sorted). Whatever occurrence the upstream
// keeps is then translated: a repetition cannot carry an untranslated value
// past the translator. A body without repetitions is encoded as always.

// repeats notes the keys a decoded body's objects repeat. A first decoding
// only finds whether there are any (found); a second one, for the rare body
// that has some, records every object's keys (objects), by the object's
// identity: the translator changes objects in place.
type repeats struct {
	found bool
	// objects are the keys of every object, when recorded.
	objects map[unsafe.Pointer]*objectKeys
	// names are the first repeated keys, for messages.
	names []string
}

// objectKeys are one object's keys in the tenant's order, and how often
// each repeated key occurred.
type objectKeys struct {
	obj    map[string]any // kept alive: its address identifies it
	order  []string
	counts map[string]int
}

func mapID(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// object starts recording the keys of m (nil when only finding).
func (r *repeats) object(m map[string]any) *objectKeys {
	if r.objects == nil {
		return nil
	}
	k := &objectKeys{obj: m}
	r.objects[mapID(m)] = k
	return k
}

// key notes key k of an object (keys), seen before in it or not.
func (r *repeats) key(keys *objectKeys, k string, seen bool) {
	if seen {
		r.found = true
	}
	if keys == nil {
		return
	}
	if !seen {
		keys.order = append(keys.order, k)
		return
	}
	if keys.counts == nil {
		keys.counts = map[string]int{}
	}
	if keys.counts[k] == 0 {
		keys.counts[k] = 1
		if len(r.names) < 5 {
			r.names = append(r.names, strconv.Quote(k))
		}
	}
	keys.counts[k]++
}

// empty reports whether the body repeated no key.
func (r *repeats) empty() bool { return r == nil || !r.found }

// decodeRepeats decodes a JSON body as decodeAny does and notes the keys its
// objects repeat; if there are any, it decodes it again to record them.
func decodeRepeats(b []byte) (any, *repeats, error) {
	r := &repeats{}
	v, err := r.decode(b)
	if err != nil || r.empty() {
		return v, r, err
	}
	r = &repeats{objects: map[unsafe.Pointer]*objectKeys{}}
	v, err = r.decode(b)
	return v, r, err
}

func (r *repeats) decode(b []byte) (any, error) {
	d := anyDecoder{b: b, reps: r}
	v, err := d.value()
	if err != nil {
		return nil, badRequest("malformed JSON: %w", err)
	}
	if d.i = skipSpace(d.b, d.i); d.i != len(d.b) {
		return nil, badRequest("malformed JSON: trailing data after a value")
	}
	return v, nil
}

// marshalRepeating encodes v as marshalJSON does, or, if the body repeated
// keys, in the tenant's order, repeating each as often as the body did. It
// fails if the translation left a repeated key out (it removed the key, or
// replaced its object): the repetition would be lost.
func marshalRepeating(v any, r *repeats) ([]byte, error) {
	if r.empty() {
		return marshalJSON(v)
	}
	left := 0
	for _, k := range r.objects {
		left += len(k.counts)
	}
	buf := getBuf()
	defer putBuf(buf)
	if err := r.encode(buf, v, &left); err != nil {
		return nil, err
	}
	if left != 0 {
		return nil, badRequest("the body repeats the key %s in an object the translation changes; send each key once", strings.Join(r.names, ", "))
	}
	return bytes.Clone(buf.Bytes()), nil
}

func (r *repeats) encode(buf *bytes.Buffer, v any, left *int) error {
	switch v := v.(type) {
	case map[string]any:
		var order []string
		var counts map[string]int
		if k := r.objects[mapID(v)]; k != nil {
			order, counts = k.order, k.counts
		}
		keys := make([]string, 0, len(v))
		inOrder := make(map[string]bool, len(order))
		for _, k := range order {
			if _, ok := v[k]; ok && !inOrder[k] {
				keys = append(keys, k)
				inOrder[k] = true
			}
		}
		known := len(keys)
		for k := range v {
			if !inOrder[k] {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[known:])
		buf.WriteByte('{')
		for i, k := range keys {
			n := 1
			if c := counts[k]; c > 1 {
				n = c
				*left--
			}
			for j := 0; j < n; j++ {
				if i > 0 || j > 0 {
					buf.WriteByte(',')
				}
				writeKey(buf, k)
				l := left
				if j > 0 { // the repetitions within count once
					l = new(int)
				}
				if err := r.encode(buf, v[k], l); err != nil {
					return err
				}
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := r.encode(buf, e, left); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		return encodeAny(buf, v)
	}
	return nil
}

// A YAML body is forwarded as the JSON the translator made of it, in which a
// repeated key appears once (the last occurrence, as the API server keeps
// it); the repetition is reported by the translator itself, as the API
// server would (its YAML line numbers are the tenant's, not those of the
// forwarded JSON), with the same library's words.

// yamlRepeatPrefixes begin the errors of sigs.k8s.io/yaml's strict
// conversion, which the API server splits into one warning per line.
var yamlRepeatPrefixes = []string{"error converting YAML to JSON: yaml: unmarshal errors:\n", "yaml: unmarshal errors:\n"}

// yamlRepeated reports the keys a YAML body repeated (repeatErr, the
// strict conversion's error) per the request's fieldValidation: Strict
// refuses the request with the API server's 400 (apply: "error strict
// decoding YAML", create and update: "cannot be handled as a"); Warn, the
// default, adds the API server's warnings to u.Warnings; Ignore says
// nothing. An unknown fieldValidation is left to the upstream to refuse.
func yamlRepeated(u *UpstreamRequest, fieldValidation string, apply bool, obj map[string]any, repeatErr error) error {
	switch fieldValidation {
	case metav1.FieldValidationStrict:
		if apply {
			return badRequest("error strict decoding YAML: error converting YAML to JSON: %s", repeatErr.Error())
		}
		kind := str(obj, "kind")
		_, version, _ := strings.Cut(str(obj, "apiVersion"), "/")
		if version == "" {
			version = str(obj, "apiVersion")
		}
		return badRequest("%s in version %q cannot be handled as a %s: %s", kind, version, kind,
			runtime.NewStrictDecodingError([]error{repeatErr}).Error())
	case "", metav1.FieldValidationWarn:
		msg := repeatErr.Error()
		for _, p := range yamlRepeatPrefixes {
			if rest, ok := strings.CutPrefix(msg, p); ok {
				for _, line := range strings.Split(rest, "\n") {
					u.Warnings = append(u.Warnings, strings.TrimSpace(line))
				}
				return nil
			}
		}
		u.Warnings = append(u.Warnings, msg)
	}
	return nil
}
