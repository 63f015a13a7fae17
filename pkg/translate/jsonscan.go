package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
)

// The hot paths (lists, watch streams) need the boundaries of JSON values far
// more often than their contents: a ConfigMap's data or a Pod's status is
// copied through untouched. encoding/json's Decoder validates and buffers
// every byte through its state machine; the scanner here only finds where a
// value ends, which is several times faster. Values that are translated are
// still decoded with encoding/json.

// errIncomplete means the input ended inside a value.
var errIncomplete = errors.New("unexpected end of JSON input")

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i] (no
// leading space). It checks the structure (matching brackets, strings, the
// scalar at the top), not every token inside containers: values that are
// translated are decoded (and so validated) by decodeAny, the others are
// copied through as the API server wrote them.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errIncomplete
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var stack [64]byte
		open := stack[:0]
		for i < len(b) {
			switch c := b[i]; c {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				open = append(open, c)
			case '}', ']':
				if want := open[len(open)-1] + 2; c != want { // '{'+2 == '}', '['+2 == ']'
					return 0, errors.New("mismatched " + strconv.QuoteRune(rune(c)))
				}
				open = open[:len(open)-1]
				if len(open) == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errIncomplete
	}
	// A number or a literal runs to the next delimiter.
	start := i
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	if err := checkScalar(b[start:i]); err != nil {
		if i == len(b) {
			return i, errIncomplete // it may go on in the next read
		}
		return 0, err
	}
	if i == len(b) {
		return i, errIncomplete // complete, unless more digits follow
	}
	return i, nil
}

// checkScalar checks a number or a literal.
func checkScalar(tok []byte) error {
	switch string(tok) {
	case "true", "false", "null":
		return nil
	}
	if len(tok) == 0 || (tok[0] != '-' && (tok[0] < '0' || tok[0] > '9')) {
		return errors.New("invalid value " + strconv.Quote(string(tok)))
	}
	if _, err := strconv.ParseFloat(string(tok), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return errors.New("invalid number " + strconv.Quote(string(tok)))
	}
	return nil
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errIncomplete
}

// commonKeys are interned so that the hot paths do not allocate a string
// for every key of every object.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"apiVersion", "kind", "metadata", "spec", "status", "data", "binaryData",
		"immutable", "type", "object", "items", "name", "namespace", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "labels", "annotations", "ownerReferences", "finalizers",
		"managedFields", "generateName", "selfLink", "continue", "remainingItemCount",
		"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "v1", "ConfigMap", "Secret"} {
		m[k] = k
	}
	return m
}()

// unquoteKey returns the string value of the JSON string s (with quotes).
func unquoteKey(s []byte) (string, error) {
	inner := s[1 : len(s)-1]
	if k, ok := commonKeys[string(inner)]; ok {
		return k, nil
	}
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), nil
	}
	var k string
	err := json.Unmarshal(s, &k)
	return k, err
}

// forEachField calls fn for every member of the JSON object b, in order,
// with the raw bytes of its value.
func forEachField(b []byte, fn func(key string, val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errors.New("expected an object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errors.New("expected a key")
		}
		end, err := skipString(b, i)
		if err != nil {
			return err
		}
		key, err := unquoteKey(b[i:end])
		if err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return errors.New("expected ':' after a key")
		}
		i = skipSpace(b, i+1)
		vend, err := skipValue(b, i)
		if err != nil && !(errors.Is(err, errIncomplete) && vend > i) {
			return err
		}
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return errIncomplete
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return nil
		default:
			return errors.New("expected ',' or '}' in an object")
		}
	}
}

// jsonStream reads JSON values from a stream without holding more than the
// value at hand (plus one read) in memory.
type jsonStream struct {
	r   io.Reader
	buf []byte
	pos int
	eof bool
}

// streamBufs recycles the read buffers of jsonStreams (32 KiB each; one per
// request and per open watch).
var streamBufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

func newJSONStream(r io.Reader) *jsonStream {
	return &jsonStream{r: r, buf: (*streamBufs.Get().(*[]byte))[:0]}
}

// release returns the read buffer to the pool (unless it grew past 1 MiB);
// the stream must not be used afterwards.
func (s *jsonStream) release() {
	if cap(s.buf) <= 1<<20 {
		b := s.buf[:0]
		streamBufs.Put(&b)
	}
	s.buf = nil
}

// fill reads more input, dropping what was consumed.
func (s *jsonStream) fill() error {
	if s.eof {
		return io.ErrUnexpectedEOF
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.pos = 0
	}
	if len(s.buf) == cap(s.buf) {
		grown := make([]byte, len(s.buf), 2*cap(s.buf))
		copy(grown, s.buf)
		s.buf = grown
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if errors.Is(err, io.EOF) {
		s.eof = true
		return nil
	}
	return err
}

// peek skips space and returns the next byte; ok is false at the end of the
// input.
func (s *jsonStream) peek() (c byte, ok bool, err error) {
	for {
		s.pos = skipSpace(s.buf, s.pos)
		if s.pos < len(s.buf) {
			return s.buf[s.pos], true, nil
		}
		if s.eof {
			return 0, false, nil
		}
		if err := s.fill(); err != nil {
			return 0, false, err
		}
	}
}

// expect consumes the byte c (after space).
func (s *jsonStream) expect(c byte) error {
	got, ok, err := s.peek()
	if err != nil {
		return err
	}
	if !ok {
		return io.ErrUnexpectedEOF
	}
	if got != c {
		return errors.New("expected " + strconv.QuoteRune(rune(c)) + ", found " + strconv.QuoteRune(rune(got)))
	}
	s.pos++
	return nil
}

// value returns the raw bytes of the next value; they are valid until the
// next call.
func (s *jsonStream) value() ([]byte, error) {
	if _, ok, err := s.peek(); err != nil {
		return nil, err
	} else if !ok {
		return nil, io.ErrUnexpectedEOF
	}
	for {
		end, err := skipValue(s.buf, s.pos)
		if errors.Is(err, errIncomplete) && s.eof && end > s.pos {
			err = checkScalar(s.buf[s.pos:end]) // a scalar that ends the input
		}
		if err == nil {
			v := s.buf[s.pos:end]
			s.pos = end
			return v, nil
		}
		if !errors.Is(err, errIncomplete) {
			return nil, err
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// key returns the next object key and consumes the ':' after it.
func (s *jsonStream) key() (string, error) {
	raw, err := s.value()
	if err != nil {
		return "", err
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", errors.New("expected a key")
	}
	k, err := unquoteKey(raw)
	if err != nil {
		return "", err
	}
	return k, s.expect(':')
}

// next consumes the ',' between members or elements and reports whether
// another one follows (false at the closing delimiter close, consumed too).
func (s *jsonStream) next(close byte) (bool, error) {
	c, ok, err := s.peek()
	if err != nil {
		return false, err
	}
	if !ok {
		return false, io.ErrUnexpectedEOF
	}
	switch c {
	case ',':
		s.pos++
		return true, nil
	case close:
		s.pos++
		return false, nil
	}
	return false, errors.New("expected ',' or " + strconv.QuoteRune(rune(close)) + ", found " + strconv.QuoteRune(rune(c)))
}

// first reports whether the object or array just opened has a first member
// or element (false at once at the closing delimiter close, consumed too).
func (s *jsonStream) first(close byte) (bool, error) {
	c, ok, err := s.peek()
	if err != nil {
		return false, err
	}
	if !ok {
		return false, io.ErrUnexpectedEOF
	}
	if c == close {
		s.pos++
		return false, nil
	}
	return true, nil
}
