package framework

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ExecStaysInTheSandbox runs with the pinned kubectl, in the pod, what a
// hostile user of the pod would run to reach the machine the cluster runs
// on — a shell, host binaries by path, host files by absolute path and by
// `..`, env to run something else — and checks that each is refused or
// fails inside the pod's sandbox, that nothing of this machine comes back,
// and that the file they all try to make here never exists.
func ExecStaysInTheSandbox(t *testing.T, kubeconfig, namespace, pod string) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "pwned")
	up := strings.Repeat("../", 12)
	passwd, err := os.ReadFile("/etc/passwd")
	require.NoError(t, err)
	hostLine, _, _ := strings.Cut(string(passwd), "\n")
	for _, tc := range []struct {
		name   string
		cmd    []string
		exit   int
		stderr string
	}{
		{"a shell", []string{"/bin/sh", "-c", "touch " + marker}, 126, "refused: pods of the dev cluster's kwok node run no shell"},
		{"bash", []string{"bash", "-c", "touch " + marker}, 126, "refused"},
		{"a host binary by path", []string{"/usr/bin/touch", marker}, 127, "command not found"},
		{"a host file", []string{"cat", "/etc/passwd"}, 1, "cat: /etc/passwd: no such file or directory"},
		{"a host file by ..", []string{"/bin/cat", up + "etc/passwd"}, 1, "no such file or directory"},
		{"a host directory by ..", []string{"ls", "/.." + filepath.Dir(marker)}, 1, "no such file or directory"},
		{"env running a shell", []string{"env", "-i", "/bin/sh", "-c", "touch " + marker}, 126, "env: refused"},
		{"env setting PATH", []string{"/usr/bin/env", "PATH=/usr/bin", "touch", marker}, 126, "env: refused"},
		{"tar of a host file", []string{"tar", "cf", "-", "/etc/passwd"}, 1, "no such file or directory"},
		{"tar from a host file", []string{"tar", "xf", "/etc/passwd"}, 2, "the archive is stdin or stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := kubectlExec(t, kubeconfig, namespace, pod, tc.cmd...)
			var exit *exec.ExitError
			require.True(t, errors.As(res.Err, &exit), "exec must fail: %v %s", res.Err, res.Stdout)
			assert.Equal(t, tc.exit, exit.ExitCode(), res.Stderr)
			assert.Contains(t, res.Stderr, tc.stderr)
			assert.NotContains(t, res.Stdout, hostLine)
			assert.NoFileExists(t, marker)
		})
	}
	t.Run("what is made stays in the pod", func(t *testing.T) {
		kubectl := func(cmd ...string) string {
			res := kubectlExec(t, kubeconfig, namespace, pod, cmd...)
			require.NoError(t, res.Err, res.Stderr)
			return res.Stdout
		}
		kubectl("mkdir", "-p", up+strings.TrimPrefix(marker, "/"))
		assert.Equal(t, "pwned\n", kubectl("ls", filepath.Dir(marker)))
		assert.NoFileExists(t, marker)
		assert.NoDirExists(t, marker)
		env := kubectl("env")
		assert.Contains(t, env, "HOSTNAME="+pod+"\n")
		assert.NotContains(t, env, os.Getenv("ZOO_KUBE_BIN"))
		assert.Equal(t, pod+"\n", kubectl("hostname"))
	})
}

// kubectlExec runs cmd in pod with the pinned kubectl exec.
func kubectlExec(t *testing.T, kubeconfig, namespace, pod string, cmd ...string) Result {
	t.Helper()
	args := append([]string{"--kubeconfig", kubeconfig, "-n", namespace, "exec", pod, "--"}, cmd...)
	return Run(t.Context(), nil, KubectlPath(), args...)
}
