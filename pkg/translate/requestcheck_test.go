package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBodyHeaders: the translator reads a body as its bytes are, so bodies
// whose headers say otherwise are refused, and reads forward no body.
func TestBodyHeaders(t *testing.T) {
	tr := newTestTranslator(t)
	const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`
	for _, tc := range []struct {
		name, method string
		header       http.Header
		code         int32
		forwarded    bool
	}{
		{"gzip", http.MethodPost, http.Header{"Content-Encoding": {"gzip"}}, 415, false},
		{"gzip after identity", http.MethodPost, http.Header{"Content-Encoding": {"identity", "gzip"}}, 415, false},
		{"identity", http.MethodPost, http.Header{"Content-Encoding": {"identity"}}, 0, true},
		{"two content types", http.MethodPost, http.Header{"Content-Type": {MediaJSON, MediaProtobuf}}, 400, false},
		{"content type with parameters", http.MethodPost, http.Header{"Content-Type": {"application/json; charset=utf-8"}}, 0, true},
		{"a GET with a body", http.MethodGet, http.Header{"Content-Type": {MediaJSON}}, 0, false},
		{"a list with a gzip body", http.MethodGet, http.Header{"Content-Encoding": {"gzip"}}, 0, false},
		{"a delete whose body is an object", http.MethodDelete, nil, 400, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/v1/namespaces/default/configmaps"
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: path, Header: tc.header, Body: []byte(cm)})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.forwarded, u.Body != nil)
			if u.Body != nil {
				assert.Equal(t, MediaJSON, u.Header.Get("Content-Type"))
			}
		})
	}
}
