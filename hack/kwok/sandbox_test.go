package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilexec "k8s.io/utils/exec"
)

// execResult is what one exec in the sandbox printed and its exit status.
type execResult struct {
	stdout, stderr string
	code           int
}

type nopCloser struct{ strings.Builder }

func (*nopCloser) Close() error { return nil }

// execIn runs cmd in pod "ns/web" of a sandbox under dir.
func execIn(t *testing.T, dir, stdin string, tty bool, cmd ...string) execResult {
	t.Helper()
	var out, errOut nopCloser
	err := (&sandbox{dir: dir}).ExecInContainer(t.Context(), "ns/web", "", "c", cmd,
		strings.NewReader(stdin), &out, &errOut, tty, nil, 0)
	res := execResult{stdout: out.String(), stderr: errOut.String()}
	if err != nil {
		exit, ok := err.(utilexec.CodeExitError)
		require.True(t, ok, "not an exit status: %v", err)
		res.code = exit.Code
	}
	return res
}

// TestSandboxNeverTouchesTheHost runs what a hostile pod user would try: no
// command of this machine runs, and no path reaches outside the pod's
// sandbox.
func TestSandboxNeverTouchesTheHost(t *testing.T) {
	host := t.TempDir()
	secret := filepath.Join(host, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("host secret\n"), 0o600))
	dir := filepath.Join(host, "sandbox")
	pwned := filepath.Join(host, "pwned")
	t.Setenv("ZOO_HOST_SECRET", "leaked")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ns", "web"), 0o700))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "ns", "web", "link")))

	for _, tc := range []struct {
		name   string
		cmd    []string
		code   int
		stderr string
	}{
		{"a shell", []string{"/bin/sh", "-c", "touch " + pwned}, exitRefused, "refused"},
		{"bash", []string{"bash"}, exitRefused, "run no shell, only cat, echo, env"},
		{"a host binary by path", []string{"/usr/bin/touch", pwned}, exitNotFound, "command not found"},
		{"a relative binary", []string{"./touch", pwned}, exitNotFound, "command not found"},
		{"a host file", []string{"cat", "/etc/passwd"}, 1, "cat: /etc/passwd: no such file or directory"},
		{"dot-dot", []string{"cat", "../../../secret"}, 1, "no such file or directory"},
		{"dot-dot absolute", []string{"/bin/cat", "/../../../../" + strings.TrimPrefix(secret, "/")}, 1, "no such file or directory"},
		{"a symbolic link out", []string{"cat", "/link"}, 1, "path escapes from parent"},
		{"env runs nothing", []string{"env", "LD_PRELOAD=/x.so", "sh"}, exitRefused, "env: refused"},
		{"env -i", []string{"/usr/bin/env", "-i", "/bin/sh"}, exitRefused, "env: refused"},
		{"ls of the parent", []string{"ls", "../.."}, 0, ""},
		{"mkdir above", []string{"mkdir", "-p", "../../../escape"}, 0, ""},
		{"tar from a path", []string{"tar", "xf", secret}, 2, "the archive is stdin or stdout"},
		{"no command", nil, exitNotFound, "no command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := execIn(t, dir, "", false, tc.cmd...)
			assert.Equal(t, tc.code, res.code, res.stderr)
			assert.Contains(t, res.stderr, tc.stderr)
			assert.NotContains(t, res.stdout, "host secret")
			assert.NotContains(t, res.stdout, "secret")
			assert.NoFileExists(t, pwned)
			assert.NoDirExists(t, filepath.Join(host, "escape"))
		})
	}
	assert.DirExists(t, filepath.Join(dir, "ns", "web", "escape"), "mkdir above made it in the sandbox")
	assert.NotContains(t, execIn(t, dir, "", false, "env").stdout, "leaked")
}

// TestSandboxBuiltins: each built-in does what its name says, in the pod's
// sandbox.
func TestSandboxBuiltins(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, stdin string
		cmd         []string
		stdout      string
		code        int
	}{
		{"echo", "", []string{"echo", "exec-42"}, "exec-42\n", 0},
		{"echo -n by path", "", []string{"/bin/echo", "-n", "a", "b"}, "a b", 0},
		{"cat stdin", "through stdin\n", []string{"cat"}, "through stdin\n", 0},
		{"cat -", "x", []string{"cat", "-"}, "x", 0},
		{"hostname", "", []string{"hostname"}, "web\n", 0},
		{"env", "", []string{"env"}, "HOME=/\nHOSTNAME=web\nPATH=/usr/local/bin:/usr/bin:/bin\n", 0},
		{"pwd", "", []string{"pwd"}, "/\n", 0},
		{"mkdir", "", []string{"mkdir", "-p", "/a/b"}, "", 0},
		{"ls", "", []string{"ls", "/a"}, "b\n", 0},
		{"test -d", "", []string{"test", "-d", "/a/b"}, "", 0},
		{"test -f of a directory", "", []string{"test", "-f", "/a/b"}, "", 1},
		{"test -e of nothing", "", []string{"test", "-e", "/nothing"}, "", 1},
		{"true", "", []string{"true"}, "", 0},
		{"false", "", []string{"false"}, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := execIn(t, dir, tc.stdin, false, tc.cmd...)
			assert.Equal(t, tc.code, res.code, res.stderr)
			assert.Equal(t, tc.stdout, res.stdout)
		})
	}
	t.Run("mktemp", func(t *testing.T) {
		res := execIn(t, dir, "", false, "mktemp", "-d")
		require.Zero(t, res.code, res.stderr)
		name := strings.TrimSpace(res.stdout)
		assert.Regexp(t, `^/tmp/tmp\.[A-Z2-7]{10}$`, name)
		assert.DirExists(t, filepath.Join(dir, "ns", "web", name))
	})
	t.Run("a terminal gets CRLF", func(t *testing.T) {
		assert.Equal(t, "a\r\n", execIn(t, dir, "", true, "echo", "a").stdout)
	})
	t.Run("pods are apart", func(t *testing.T) {
		var out, errOut nopCloser
		err := (&sandbox{dir: dir}).ExecInContainer(t.Context(), "ns/other", "", "c", []string{"ls", "/a"},
			strings.NewReader(""), &out, &errOut, false, nil, 0)
		require.Error(t, err)
		assert.Contains(t, errOut.String(), "no such file or directory")
	})
}

// TestSandboxRefusesAPodNameThatIsAPath: the pod's directory is made of its
// namespace and name, which must be names.
func TestSandboxRefusesAPodNameThatIsAPath(t *testing.T) {
	for _, name := range []string{"../web", "ns/..", "ns/../../x", "ns", "/web", "ns/a/b"} {
		t.Run(name, func(t *testing.T) {
			var out, errOut nopCloser
			err := (&sandbox{dir: t.TempDir()}).ExecInContainer(t.Context(), name, "", "c", []string{"echo"},
				nil, &out, &errOut, false, nil, 0)
			require.ErrorContains(t, err, "invalid pod")
		})
	}
}

// TestSandboxWithoutOutputStreams: a client may ask for stdin alone, or
// stdout alone; what the command writes to a stream not asked for is lost.
func TestSandboxWithoutOutputStreams(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		code int
	}{{[]string{"echo", "hi"}, 0}, {[]string{"sh"}, exitRefused}, {[]string{"cat", "/nothing"}, 1}} {
		t.Run(tc.cmd[0], func(t *testing.T) {
			err := (&sandbox{dir: t.TempDir()}).ExecInContainer(t.Context(), "ns/web", "", "c", tc.cmd,
				strings.NewReader("in"), nil, nil, false, nil, 0)
			code := 0
			if exit, ok := err.(utilexec.CodeExitError); ok {
				code = exit.Code
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.code, code)
		})
	}
}
