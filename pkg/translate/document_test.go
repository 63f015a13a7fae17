package translate

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDocumentRoundTripKeepsNumbers(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"int above 2^53", `{"a":9007199254740993}`, `{"a":9007199254740993}`},
		{"max int64", `{"a":9223372036854775807,"b":-9223372036854775808}`, `{"a":9223372036854775807,"b":-9223372036854775808}`},
		{"beyond int64", `{"a":123456789012345678901234567890}`, `{"a":123456789012345678901234567890}`},
		{"float as written", `{"a":0.1,"b":1e3,"c":1.50}`, `{"a":0.1,"b":1e3,"c":1.50}`},
		{"nested, keys sorted", `{"z":[1,{"y":18446744073709551615}],"a":"x"}`, `{"a":"x","z":[1,{"y":18446744073709551615}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := DecodeDocument([]byte(tc.in))
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, EncodeDocument(&out, doc))
			assert.Equal(t, tc.want+"\n", out.String())
		})
	}
	for _, bad := range []string{`[1]`, `{"a":}`, `{"a":1} x`, ``} {
		_, err := DecodeDocument([]byte(bad))
		assert.Error(t, err, bad)
	}
}
