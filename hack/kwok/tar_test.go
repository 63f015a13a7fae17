package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// archive is a tar stream of entries: name to content, or to a link target
// when the name ends in "@".
func archive(t *testing.T, entries [][2]string) string {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, e := range entries {
		name, body := e[0], e[1]
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}
		if name[len(name)-1] == '@' {
			h = &tar.Header{Name: name[:len(name)-1], Linkname: body, Typeflag: tar.TypeSymlink}
			body = ""
		}
		require.NoError(t, w.WriteHeader(h))
		_, err := w.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.String()
}

// TestSandboxTar: kubectl cp's `tar -xmf - -C dir` lands in the pod's
// sandbox whatever the entries are named, links are skipped, and `tar cf -`
// gives the files back.
func TestSandboxTar(t *testing.T) {
	host := t.TempDir()
	dir := filepath.Join(host, "sandbox")
	pod := filepath.Join(dir, "ns", "web")
	in := archive(t, [][2]string{
		{"hello.txt", "copied\n"},
		{"../../../../escape.txt", "up\n"},
		{"/abs/file.txt", "abs\n"},
		{"passwd@", "/etc/passwd"},
	})
	res := execIn(t, dir, in, false, "tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/tmp/d")
	require.Zero(t, res.code, res.stderr)
	assert.Contains(t, res.stderr, "passwd: skipped")
	assert.FileExists(t, filepath.Join(pod, "tmp", "d", "hello.txt"))
	assert.FileExists(t, filepath.Join(pod, "escape.txt"))
	assert.FileExists(t, filepath.Join(pod, "tmp", "d", "abs", "file.txt"))
	assert.NoFileExists(t, filepath.Join(pod, "tmp", "d", "passwd"))
	assert.NoFileExists(t, filepath.Join(host, "escape.txt"))

	assert.Equal(t, "copied\n", execIn(t, dir, "", false, "cat", "/tmp/d/hello.txt").stdout)

	res = execIn(t, dir, "", false, "tar", "cf", "-", "/tmp/d")
	require.Zero(t, res.code, res.stderr)
	r := tar.NewReader(bytes.NewReader([]byte(res.stdout)))
	got := map[string]string{}
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		body, err := io.ReadAll(r)
		require.NoError(t, err)
		got[h.Name] = string(body)
	}
	assert.Equal(t, map[string]string{"tmp/d/": "", "tmp/d/abs/": "", "tmp/d/abs/file.txt": "abs\n", "tmp/d/hello.txt": "copied\n"}, got)

	for _, args := range [][]string{{"xcf", "-"}, {"xf", "/etc/passwd"}, {"-t"}, {}} {
		assert.Equal(t, 2, execIn(t, dir, "", false, append([]string{"tar"}, args...)...).code, args)
	}
	_, err := os.Stat(filepath.Join(host, "tmp"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestSandboxTarIsBounded: a pod's sandbox holds at most podMaxBytes, however
// many archives it is sent.
func TestSandboxTarIsBounded(t *testing.T) {
	dir := t.TempDir()
	half := string(make([]byte, podMaxBytes/2))
	for i, want := range []int{0, 2} {
		res := execIn(t, dir, archive(t, [][2]string{{fmt.Sprintf("f%d", i), half}}), false, "tar", "xf", "-")
		assert.Equal(t, want, res.code, res.stderr)
	}
	res := execIn(t, dir, archive(t, [][2]string{{"small", "x"}}), false, "tar", "xf", "-")
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "archive larger than the")
}
