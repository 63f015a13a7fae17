package translate

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// protoReaders hold the buffered readers of TranslateProtobuf.
var protoReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// protoReader reads a protobuf stream: all of it (n < 0) or the n bytes of
// one message, for which it ends with io.EOF.
type protoReader struct {
	r *bufio.Reader
	n int64
}

// ReadByte implements io.ByteReader.
func (p *protoReader) ReadByte() (byte, error) {
	if p.n == 0 {
		return 0, io.EOF
	}
	b, err := p.r.ReadByte()
	if err == nil && p.n > 0 {
		p.n--
	}
	return b, err
}

// Read implements io.Reader.
func (p *protoReader) Read(b []byte) (int, error) {
	if p.n == 0 {
		return 0, io.EOF
	}
	if p.n > 0 && int64(len(b)) > p.n {
		b = b[:p.n]
	}
	n, err := p.r.Read(b)
	if p.n > 0 {
		p.n -= int64(n)
	}
	return n, err
}

// readTag reads a field's tag; io.EOF (unwrapped) at a clean end.
func readTag(r *protoReader) (protowire.Number, protowire.Type, error) {
	v, err := binary.ReadUvarint(r)
	if errors.Is(err, io.EOF) {
		return 0, 0, io.EOF
	}
	if err != nil {
		return 0, 0, malformed(fmt.Errorf("protobuf tag: %w", err))
	}
	num, typ := protowire.DecodeTag(v)
	if num < protowire.MinValidNumber {
		return 0, 0, malformed(errors.New("protobuf field number 0"))
	}
	return num, typ, nil
}

// readLen reads a length-delimited field's length. Fields read into memory
// are bounded by readN; the raw message itself is streamed.
func readLen(r *protoReader) (int64, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, malformed(fmt.Errorf("protobuf length: %w", unexpectedEOF(err)))
	}
	if v > 1<<40 {
		return 0, malformed(errors.New("protobuf length out of range"))
	}
	return int64(v), nil
}

// readN reads a field of n bytes into a new slice.
func readN(r io.Reader, n int64) ([]byte, error) { return readInto(r, n, nil) }

// readInto reads a field of n bytes, into buf when it is large enough. Large
// fields are read in growing steps, so a length that lies costs no more
// memory than the bytes that really come.
func readInto(r io.Reader, n int64, buf []byte) ([]byte, error) {
	if n > maxProtobufField {
		return nil, malformed(fmt.Errorf("protobuf field of %d bytes", n))
	}
	if n > 1<<20 && int64(cap(buf)) < n {
		b, err := io.ReadAll(io.LimitReader(r, n))
		if err == nil && int64(len(b)) < n {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, malformed(fmt.Errorf("protobuf field: %w", err))
		}
		return b, nil
	}
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, malformed(fmt.Errorf("protobuf field: %w", unexpectedEOF(err)))
	}
	return buf, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// eachField calls fn with every field of a message: its number, wire type,
// value (the bytes of a length-delimited field, the encoded value of any
// other) and where the whole field, tag included, starts and ends in msg.
func eachField(msg []byte, fn func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error) error {
	for pos := 0; pos < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[pos:])
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, msg[pos+n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		val := msg[pos+n : pos+n+m]
		if typ == protowire.BytesType {
			val, _ = protowire.ConsumeBytes(val)
		}
		if err := fn(num, typ, val, pos, pos+n+m); err != nil {
			return err
		}
		pos += n + m
	}
	return nil
}
