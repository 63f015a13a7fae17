package localproxy

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"sync"
)

// spillMemory is how much of an answer a spill keeps in memory before it
// moves to a temporary file.
const spillMemory = 1 << 20

// spill holds a translated answer that cannot be sent until its length is
// known (a protobuf list: its length comes before its items). Up to
// spillMemory bytes stay in memory; beyond that everything goes to an
// unlinked temporary file, so the proxy's memory does not grow with the
// answer. What goes to the file is encrypted (AES-CTR) with a key that only
// lives in this process, so tenant data such as Secrets never rest on disk
// in the clear.
type spill struct {
	mem     *bytes.Buffer // from spillBuffers
	file    *os.File
	path    string // set while the file still needs removing
	enc     cipher.Stream
	key, iv []byte
	scratch *[]byte // encryption buffer, from spillScratch
	pending int     // encrypted bytes in scratch not yet in the file
	n       int64
	err     error
}

// spillBuffers hold the in-memory part of spills.
var spillBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// spillChunk is the size of a spill's reads and writes of its file (and of
// what it hands the client's connection at once when sending it): large
// enough that a list of megabytes costs tens of system calls and HTTP/2
// hand-offs, not hundreds.
const spillChunk = 256 << 10

// spillScratch hold the encryption buffers (spillChunk bytes) of spills.
var spillScratch = sync.Pool{New: func() any { b := make([]byte, spillChunk); return &b }}

// Write appends p.
func (s *spill) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.mem == nil && s.file == nil {
		s.mem = spillBuffers.Get().(*bytes.Buffer)
		s.mem.Reset()
	}
	if s.file == nil && s.mem.Len()+len(p) <= spillMemory {
		s.n += int64(len(p))
		return s.mem.Write(p)
	}
	if s.file == nil {
		if s.err = s.toFile(); s.err != nil {
			return 0, s.err
		}
	}
	if err := s.writeFile(p); err != nil {
		s.err = err
		return 0, err
	}
	s.n += int64(len(p))
	return len(p), nil
}

// toFile moves what is in memory to a new temporary file.
func (s *spill) toFile() error {
	s.key, s.iv = make([]byte, 32), make([]byte, aes.BlockSize)
	if _, err := rand.Read(s.key); err != nil {
		return err
	}
	if _, err := rand.Read(s.iv); err != nil {
		return err
	}
	block, err := aes.NewCipher(s.key)
	if err != nil {
		return err
	}
	s.enc = cipher.NewCTR(block, s.iv)
	f, err := os.CreateTemp("", "kubectl-zoo-answer-*")
	if err != nil {
		return fmt.Errorf("spilling a large answer to disk: %w", err)
	}
	s.file = f
	if os.Remove(f.Name()) != nil { // Windows cannot remove an open file
		s.path = f.Name()
	}
	err = s.writeFile(s.mem.Bytes())
	s.release()
	return err
}

// writeFile encrypts p into the file, spillChunk bytes per write.
func (s *spill) writeFile(p []byte) error {
	if s.scratch == nil {
		s.scratch = spillScratch.Get().(*[]byte)
	}
	buf := *s.scratch
	for len(p) > 0 {
		n := min(len(p), len(buf)-s.pending)
		s.enc.XORKeyStream(buf[s.pending:s.pending+n], p[:n])
		s.pending += n
		p = p[n:]
		if s.pending == len(buf) {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes the encrypted bytes pending in scratch to the file.
func (s *spill) flush() error {
	if s.pending == 0 {
		return nil
	}
	_, err := s.file.Write((*s.scratch)[:s.pending])
	s.pending = 0
	if err != nil {
		return fmt.Errorf("spilling a large answer to disk: %w", err)
	}
	return nil
}

// Len returns how many bytes were written.
func (s *spill) Len() int64 { return s.n }

// WriteTo writes everything written so far to w.
func (s *spill) WriteTo(w io.Writer) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.file == nil {
		if s.mem == nil {
			return 0, nil
		}
		return s.mem.WriteTo(w)
	}
	if err := s.flush(); err != nil {
		s.err = err
		return 0, err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	block, err := aes.NewCipher(s.key)
	if err != nil {
		return 0, err
	}
	dec := cipher.NewCTR(block, s.iv)
	buf := *s.scratch
	var total int64
	for {
		n, err := s.file.Read(buf)
		if n > 0 {
			dec.XORKeyStream(buf[:n], buf[:n])
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// release returns the memory buffer to its pool.
func (s *spill) release() {
	if s.mem != nil && s.mem.Cap() <= 2*spillMemory {
		spillBuffers.Put(s.mem)
	}
	s.mem = nil
}

// Close releases the memory and the temporary file, if any.
func (s *spill) Close() error {
	s.release()
	if s.scratch != nil {
		spillScratch.Put(s.scratch)
		s.scratch = nil
	}
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	if s.path != "" {
		_ = os.Remove(s.path)
	}
	s.file = nil
	return err
}
