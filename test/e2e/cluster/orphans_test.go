package cluster_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const helperEnv = "ZOO_E2E_ORPHAN_HELPER"

// TestNoOrphansWhenTestBinaryIsKilled runs this test binary again as a child
// (which starts a cluster of its own in TestMain), kills the child with
// SIGKILL — no cleanup code runs — and checks that every control-plane
// process of the child's cluster goes with it.
func TestNoOrphansWhenTestBinaryIsKilled(t *testing.T) {
	child := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestOrphanHelperWaits$", "-test.v")
	child.Env = append(os.Environ(), helperEnv+"=1")
	stdout, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })

	var dir string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if d, ok := strings.CutPrefix(lines.Text(), "CLUSTER-DIR "); ok {
			dir = d
			break
		}
	}
	require.NotEmpty(t, dir, "the child never reported its cluster")
	t.Cleanup(func() { _ = os.RemoveAll(dir) })

	pidFiles, err := filepath.Glob(filepath.Join(dir, "pids", "*.pid"))
	require.NoError(t, err)
	require.Len(t, pidFiles, 5, "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok")
	var pids []int
	for _, f := range pidFiles {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(pid, 0), "%s (pid %d) is not running before the kill", f, pid)
		pids = append(pids, pid)
	}

	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	for _, pid := range pids {
		assert.Eventually(t, func() bool { return !alive(pid) }, 20*time.Second, 100*time.Millisecond,
			"pid %d outlived the killed test binary", pid)
	}
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestOrphanHelperWaits is the child of TestNoOrphansWhenTestBinaryIsKilled:
// it reports its cluster and waits to be killed. It is skipped in normal runs.
func TestOrphanHelperWaits(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("helper process for TestNoOrphansWhenTestBinaryIsKilled")
	}
	os.Stdout.WriteString("CLUSTER-DIR " + framework.Cluster().Dir + "\n")
	time.Sleep(5 * time.Minute)
}
