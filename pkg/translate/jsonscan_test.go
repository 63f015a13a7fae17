package translate

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonSamples are valid JSON values of every shape the hot paths meet.
var jsonSamples = []string{
	`null`, `true`, `false`, `0`, `-1.5e+10`, `12345678901234567890`, `""`, `"plain"`,
	`"esc\"aped\\\n\u00e9\ud83d\ude00"`, `"ünïcode"`, `"<html>&"`, `[]`, `{}`, `[1,"a",null,[{}]]`,
	`{"a":{"b":[1,2,{"c":"d"}]},"e":"f\"}"}`, ` { "spaced" : [ 1 , 2 ] , "k" : "v" } `,
	`{"metadata":{"name":"x","labels":{"a":"b"}},"data":{"k":"v"}}`,
}

func TestDecodeAnyMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonSamples {
		t.Run(s, func(t *testing.T) {
			var want any
			require.NoError(t, decodeJSON([]byte(s), &want))
			got, err := decodeAny([]byte(s))
			require.NoError(t, err)
			assert.Equal(t, want, got)

			var wantBuf, gotBuf bytes.Buffer
			require.NoError(t, encodeJSON(&wantBuf, want))
			require.NoError(t, encodeAny(&gotBuf, got))
			assert.Equal(t, wantBuf.String(), gotBuf.String())
		})
	}
}

func TestDecodeAnyRejectsMalformedJSON(t *testing.T) {
	for _, s := range []string{``, `{`, `[1,`, `{"a"}`, `{"a":1,}`, `{"a":1 "b":2}`, `[1 2]`, `tru`, `nul`,
		`-`, `1.2.3`, `"unterminated`, `{1:2}`, `x`, `1 2`, `"bad \x escape"`, `[}`} {
		t.Run(s, func(t *testing.T) {
			_, err := decodeAny([]byte(s))
			assert.Error(t, err)
		})
	}
}

func TestEncodeAnyFallsBackForOtherTypes(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, encodeAny(&buf, map[string]any{"n": 3, "f": 1.5, "s": []string{"a"}, "e": ""}))
	assert.Equal(t, `{"e":"","f":1.5,"n":3,"s":["a"]}`, buf.String())
}

func TestForEachFieldReportsMembersInOrder(t *testing.T) {
	var keys, vals []string
	err := forEachField([]byte(` {"b" : 1, "a":{"x":[1,{"y":"}"}]} , "\u0063":"z", "n":null}`), func(k string, v []byte) error {
		keys = append(keys, k)
		vals = append(vals, string(v))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a", "c", "n"}, keys)
	assert.Equal(t, []string{`1`, `{"x":[1,{"y":"}"}]}`, `"z"`, `null`}, vals)

	for _, bad := range []string{`[]`, `{"a"`, `{"a" 1}`, `{"a":}`, `{"a":1`, `{"a":1;}`, `{a:1}`, `{"a":1,"b":]`} {
		assert.Error(t, forEachField([]byte(bad), func(string, []byte) error { return nil }), bad)
	}
	assert.NoError(t, forEachField([]byte(`{}`), func(string, []byte) error { return nil }))
}

// TestJSONStreamReadsAcrossReads feeds a stream one byte per Read, so every
// value crosses read boundaries and the buffer has to grow.
func TestJSONStreamReadsAcrossReads(t *testing.T) {
	big := strings.Repeat("x", 70<<10)
	in := `{"a" : [ 1 , "` + big + `" , {"k":true} ] , "z":-12}`
	s := newJSONStream(iotest.OneByteReader(strings.NewReader(in)))
	require.NoError(t, s.expect('{'))
	k, err := s.key()
	require.NoError(t, err)
	assert.Equal(t, "a", k)
	require.NoError(t, s.expect('['))
	var vals []string
	for more := true; more; {
		v, err := s.value()
		require.NoError(t, err)
		vals = append(vals, string(v))
		more, err = s.next(']')
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"1", `"` + big + `"`, `{"k":true}`}, vals)
	more, err := s.next('}')
	require.NoError(t, err)
	require.True(t, more)
	k, err = s.key()
	require.NoError(t, err)
	assert.Equal(t, "z", k)
	v, err := s.value()
	require.NoError(t, err)
	assert.Equal(t, "-12", string(v))
	more, err = s.next('}')
	require.NoError(t, err)
	assert.False(t, more)
	_, ok, err := s.peek()
	require.NoError(t, err)
	assert.False(t, ok, "the stream is at its end")
}

func TestJSONStreamErrors(t *testing.T) {
	cases := map[string]func(s *jsonStream) error{
		"truncated value": func(s *jsonStream) error { _, err := s.value(); return err },
		"expect at end":   func(s *jsonStream) error { s.eof = true; s.buf = s.buf[:0]; return s.expect('{') },
		"wrong delimiter": func(s *jsonStream) error { return s.expect('[') },
		"key not string": func(s *jsonStream) error {
			_ = s.expect('{')
			_, err := s.key()
			return err
		},
		"bad separator": func(s *jsonStream) error {
			_ = s.expect('{')
			_, err := s.next('}')
			return err
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Error(t, run(newJSONStream(strings.NewReader(`{1 `))))
		})
	}
	s := newJSONStream(iotest.ErrReader(io.ErrClosedPipe))
	_, err := s.value()
	assert.ErrorIs(t, err, io.ErrClosedPipe)
}

func TestTranslateListRejectsMalformedLists(t *testing.T) {
	tr := newTestTranslator(t)
	rule, ok := LookupKind(gr("", "configmaps"))
	require.True(t, ok)
	for _, bad := range []string{``, `[]`, `{"kind":"ConfigMapList","items":[{"metadata":{}},]}`,
		`{"kind":"ConfigMapList","items":{}}`, `{"kind":"ConfigMapList","items":[1 2]}`,
		`{"kind":"ConfigMapList","items":[],"x":}`, `{"kind":"ConfigMapList","items":[] "x":1}`, `{"kind":}`, `{"kind":"x" "y":1}`} {
		t.Run(bad, func(t *testing.T) {
			err := tr.TranslateList(rule, strings.NewReader(bad), io.Discard)
			require.Error(t, err)
			assert.Equal(t, int32(400), ToStatus(err).Code)
		})
	}
}

func TestManagedFieldsUntouched(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`[{"manager":"kubectl","apiVersion":"v1","fieldsV1":{"f:data":{}}}]`, true},
		{`[{"manager":"kubectl","apiVersion":"apps/v1"}]`, true},
		{`[{"manager":"kubectl","apiVersion":"acme-stable.example.com/v1"}]`, false},
		{`[{"manager":"kubectl", "apiVersion" : "v1"}]`, false},
		{`[{"fieldsV1":{"f:metadata":{"f:labels":{"f:zoo.kubectl-zoo.io/tenant":{}}}}}]`, false},
		{`[{"apiVersion":"v1\"x"}]`, false},
	} {
		assert.Equal(t, tc.want, managedFieldsUntouched([]byte(tc.raw)), tc.raw)
	}
}

func TestJSONStreamScalarsAtTheEnd(t *testing.T) {
	v, err := newJSONStream(strings.NewReader(" 42")).value()
	require.NoError(t, err)
	assert.Equal(t, "42", string(v))
	_, err = newJSONStream(strings.NewReader("tru")).value()
	assert.Error(t, err)
	_, err = newJSONStream(strings.NewReader("[1,2}")).value()
	assert.Error(t, err)
}

func TestDecodeAnyBoundsNesting(t *testing.T) {
	ok := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	_, err := decodeAny([]byte(ok))
	require.NoError(t, err)
	deep := strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1)
	_, err = decodeAny([]byte(deep))
	require.ErrorContains(t, err, "nesting depth")
	_, err = decodeAny([]byte(strings.Repeat("[", 64<<20))) // the largest body: an error, not a stack overflow
	require.ErrorContains(t, err, "nesting depth")
}

func TestDecodeBodyRefusesWhatIsNotOneObject(t *testing.T) {
	for _, body := range []string{`null`, `[1]`, `"s"`, `{"a":1} {"b":2}`, `{"a":1} x`, `{"a":`, ``} {
		t.Run(body, func(t *testing.T) {
			_, err := DecodeBody(MediaJSON, []byte(body))
			require.Error(t, err)
			assert.Equal(t, int32(400), ToStatus(err).Code)
		})
	}
	obj, err := DecodeBody("application/json; charset=utf-8", []byte(` {"n":12345678901234567890,"s":"\u00e9"} `))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"n": json.Number("12345678901234567890"), "s": "é"}, obj)
}
