package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Media types the translator reads.
const (
	MediaJSON       = "application/json"
	MediaYAML       = "application/yaml"
	MediaProtobuf   = "application/vnd.kubernetes.protobuf"
	MediaJSONPatch  = "application/json-patch+json"
	MediaMergePatch = "application/merge-patch+json"
	MediaStrategic  = "application/strategic-merge-patch+json"
	MediaApplyPatch = "application/apply-patch+yaml"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer { b := bufPool.Get().(*bytes.Buffer); b.Reset(); return b }

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		bufPool.Put(b)
	}
}

// decodeJSON decodes JSON keeping numbers exact (json.Number).
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return badRequest("malformed JSON body: %w", err)
	}
	return nil
}

// encodeJSON appends the JSON of v (without HTML escaping or a newline) to buf.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

func marshalJSON(v any) ([]byte, error) {
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeJSON(buf, v); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// ParseMediaType is mime.ParseMediaType without its cost in the common case:
// a bare lower-case media type without parameters ("application/json", as
// every client sends) is returned as it is, with no parameters.
func ParseMediaType(v string) (mediatype string, params map[string]string, err error) {
	if isBareMediaType(v) {
		return v, nil, nil
	}
	return mime.ParseMediaType(v)
}

// isBareMediaType reports whether v is type/subtype in lower-case token
// characters only.
func isBareMediaType(v string) bool {
	slash := -1
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '/':
			if slash >= 0 {
				return false
			}
			slash = i
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '.', c == '+', c == '-', c == '*', c == '_':
		default:
			return false
		}
	}
	return slash > 0 && slash < len(v)-1
}

// mediaType returns the bare media type of a Content-Type header.
func mediaType(contentType string) string {
	if contentType == "" {
		return MediaJSON
	}
	mt, _, err := ParseMediaType(contentType)
	if err != nil {
		return strings.TrimSpace(strings.ToLower(contentType))
	}
	return mt
}

// DecodeBody decodes a request body sent as JSON, YAML or protobuf (built-in
// types only, using bodyScheme) into generic JSON. A repeated key keeps its
// last value, as the API server reads it.
func DecodeBody(contentType string, body []byte) (map[string]any, error) {
	d, err := decodeBody(contentType, body)
	if err != nil {
		return nil, err
	}
	return d.obj, nil
}

// decodedBody is a decoded request body and the keys it repeated.
type decodedBody struct {
	obj map[string]any
	// reps are the keys a JSON body repeated (repeats.go).
	reps *repeats
	// yamlRepeated is the error sigs.k8s.io/yaml's strict conversion, which
	// the API server runs, reports for the keys a YAML body repeated.
	yamlRepeated error
}

func decodeBody(contentType string, body []byte) (*decodedBody, error) {
	d := &decodedBody{}
	var data []byte
	switch mt := mediaType(contentType); mt {
	case MediaJSON, MediaJSONPatch, MediaMergePatch, MediaStrategic:
		data = body
	case MediaYAML, MediaApplyPatch, "application/x-yaml", "text/yaml":
		j, strictErr := yaml.YAMLToJSONStrict(body)
		if strictErr != nil { // a repeated key (the only strict error of a generic value), or not YAML
			var err error
			if j, err = yaml.YAMLToJSON(body); err != nil {
				return nil, badRequest("malformed YAML body: %w", err)
			}
			d.yamlRepeated = strictErr
		}
		data = j
	case MediaProtobuf:
		j, err := protobufToJSON(body)
		if err != nil {
			return nil, err
		}
		data = j
	default:
		return nil, unsupportedMedia(contentType)
	}
	v, reps, err := decodeRepeats(data) // several times cheaper than encoding/json, same values
	if err != nil {
		return nil, badRequest("malformed JSON body: %w", errors.Unwrap(err))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest("the body is not a JSON object")
	}
	d.obj, d.reps = obj, reps
	return d, nil
}

func protobufToJSON(body []byte) ([]byte, error) {
	obj, gvk, err := protobufCodecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		return nil, badRequest("malformed protobuf body: %w", err)
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("re-encoding protobuf body as JSON: %w", err)
	}
	return j, nil
}
