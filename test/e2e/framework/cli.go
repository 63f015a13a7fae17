package framework

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Zoo runs bin/kubectl-zoo as the cluster admin.
func Zoo(t *testing.T, args ...string) Result {
	t.Helper()
	return Run(t.Context(), nil, ZooPath(t), append([]string{"--kubeconfig", Cluster().Kubeconfig}, args...)...)
}

// MustZoo runs bin/kubectl-zoo as the cluster admin and fails the test if
// it fails.
func MustZoo(t *testing.T, args ...string) string {
	t.Helper()
	res := Zoo(t, args...)
	require.NoError(t, res.Err, "kubectl zoo %v\nstdout: %s\nstderr: %s", args, res.Stdout, res.Stderr)
	return res.Stdout
}

// RequireOneLineError checks that a command failed with exactly one line on
// stderr, kubectl's "error: ..." line, containing want.
func RequireOneLineError(t *testing.T, res Result, want string) {
	t.Helper()
	require.Error(t, res.Err, "expected failure; stdout: %s", res.Stdout)
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	require.Len(t, lines, 1, "stderr: %s", res.Stderr)
	require.True(t, strings.HasPrefix(lines[0], "error: "), "stderr: %s", res.Stderr)
	require.Contains(t, lines[0], want)
}
