package translate

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

// MediaOpenAPIV2Protobuf is the media type of the OpenAPI v2 document in
// protobuf, as the API server answers it (kube-openapi's handler).
const MediaOpenAPIV2Protobuf = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// mediaOpenAPIV2ProtobufDeprecated is the older name of the same type, which
// client-go's discovery (OpenAPISchema: kubectl's client-side validation and
// `explain --output=plaintext-openapiv2`) asks with; the API server accepts
// both. Its "@" is no token character: mime.ParseMediaType refuses it, so
// no answer carries it.
const mediaOpenAPIV2ProtobufDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

// prefersOpenAPIV2Protobuf reports whether accept asks for the OpenAPI v2
// document in protobuf before JSON: its first acceptable type (by
// quality, then order) is MediaOpenAPIV2Protobuf. The type's "@" is no
// token character, so mime.ParseMediaType refuses it: the parts are split
// here.
func prefersOpenAPIV2Protobuf(accept string) bool {
	best, bestQ := "", 0.0
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, f := range fields[1:] {
			if k, v, ok := strings.Cut(strings.TrimSpace(f), "="); ok && strings.TrimSpace(k) == "q" {
				parsed, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					parsed = 0
				}
				q = parsed
			}
		}
		if mt != "" && q > bestQ {
			best, bestQ = mt, q
		}
	}
	return best == MediaOpenAPIV2Protobuf || best == mediaOpenAPIV2ProtobufDeprecated
}

// openAPIV2Protobuf translates the upstream's OpenAPI v2 document (JSON) as
// openAPIOut does and writes it in protobuf. A Status (a refusal) stays
// JSON, as the API server writes its errors.
func (t *Translator) openAPIV2Protobuf(in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading response: %w", err)
	}
	var doc map[string]any
	if err := decodeJSON(data, &doc); err != nil {
		return err
	}
	if isStatus(doc) {
		return t.rewriteDocument(bytes.NewReader(data), out, nil)
	}
	if err := t.openAPIOut(doc); err != nil {
		return err
	}
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeJSON(buf, doc); err != nil {
		return err
	}
	parsed, err := openapiv2.ParseDocument(buf.Bytes())
	if err != nil {
		return fmt.Errorf("reading the OpenAPI v2 document: %w", err)
	}
	pb, err := proto.Marshal(parsed)
	if err != nil {
		return fmt.Errorf("writing the OpenAPI v2 document in protobuf: %w", err)
	}
	_, err = out.Write(pb)
	return err
}
