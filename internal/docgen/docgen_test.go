package docgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplace(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		fails           bool
	}{
		{"between the markers", "a\n<b>\nold\n<e>\nz", "a\n<b>\nnew\n<e>\nz", false},
		{"empty part", "<b>\n<e>", "<b>\nnew\n<e>", false},
		{"no markers", "a", "", true},
		{"out of order", "<e>\n<b>", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Replace(tc.doc, "<b>", "<e>", "new\n")
			if tc.fails {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	require.NoError(t, os.WriteFile(path, []byte("x\n<b>\nold\n<e>\n"), 0o644))
	got, want, err := Sync(path, "<b>", "<e>", "new\n", false)
	require.NoError(t, err)
	assert.NotEqual(t, want, got, "stale without -update")
	got, want, err = Sync(path, "<b>", "<e>", "new\n", true)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "x\n<b>\nnew\n<e>\n", string(b))
	_, _, err = Sync(filepath.Join(t.TempDir(), "missing.md"), "<b>", "<e>", "", false)
	require.Error(t, err)
}
