package translate

import (
	"errors"
	"fmt"
	"io"
)

// DecodeDocument decodes an upstream JSON document into the generic form the
// translator works on: numbers stay exact (json.Number), so an int64 above
// 2^53 is not rounded through float64 as encoding/json would do into any.
// Use it, and EncodeDocument, wherever a document that is not fully
// translated is decoded and written again.
func DecodeDocument(data []byte) (map[string]any, error) {
	v, err := decodeAny(data)
	if err != nil {
		return nil, malformed(errors.Unwrap(err))
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, malformed(errors.New("the document is not a JSON object"))
	}
	return doc, nil
}

// EncodeDocument writes the JSON of a document DecodeDocument (or the
// translator) produced, followed by a newline, as the API server ends its
// answers. Numbers are written as they were read.
func EncodeDocument(w io.Writer, doc map[string]any) error {
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeAny(buf, doc); err != nil {
		return err
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing document: %w", err)
	}
	return nil
}
