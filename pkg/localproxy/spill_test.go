package localproxy

import (
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpill(t *testing.T) {
	payload := make([]byte, 3*spillMemory+12345)
	_, err := rand.Read(payload)
	require.NoError(t, err)
	copy(payload, "plain secret data")

	for _, tc := range []struct {
		name   string
		size   int
		chunk  int
		onDisk bool
	}{
		{"small stays in memory", 1000, 100, false},
		{"exactly the memory limit", spillMemory, 4096, false},
		{"one byte more goes to disk", spillMemory + 1, 4096, true},
		{"large in small writes", len(payload), 777, true},
		{"large in one write", len(payload), len(payload), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var s spill
			for p := payload[:tc.size]; len(p) > 0; {
				n := min(tc.chunk, len(p))
				w, err := s.Write(p[:n])
				require.NoError(t, err)
				require.Equal(t, n, w)
				p = p[n:]
			}
			assert.Equal(t, int64(tc.size), s.Len())
			assert.Equal(t, tc.onDisk, s.file != nil)
			if s.file != nil {
				entries, err := os.ReadDir(tmp)
				require.NoError(t, err)
				assert.Empty(t, entries, "the spill file is unlinked at once")
				require.NoError(t, s.flush()) // what the last write left in its buffer
				_, err = s.file.Seek(0, io.SeekStart)
				require.NoError(t, err)
				onDisk, err := io.ReadAll(s.file)
				require.NoError(t, err)
				assert.Len(t, onDisk, tc.size)
				assert.NotContains(t, string(onDisk), "plain secret data", "spilled bytes are encrypted")
			}
			var out bytes.Buffer
			n, err := s.WriteTo(&out)
			require.NoError(t, err)
			assert.Equal(t, int64(tc.size), n)
			assert.True(t, bytes.Equal(payload[:tc.size], out.Bytes()))
			require.NoError(t, s.Close())
			require.NoError(t, s.Close(), "Close twice")
		})
	}
}
