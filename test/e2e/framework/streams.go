package framework

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

// PortForwardEcho runs the pinned kubectl port-forward to target's
// remotePort (kwok answers every forwarded port with an echo) and checks
// that bytes go there and back. env is added to kubectl's environment (e.g.
// KUBECTL_PORT_FORWARD_WEBSOCKETS=false for SPDY).
func PortForwardEcho(t *testing.T, kubeconfig, namespace, target, remotePort string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, KubectlPath(), "--kubeconfig", kubeconfig, "-n", namespace,
		"port-forward", "--address=127.0.0.1", target, ":"+remotePort)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()

	// "Forwarding from 127.0.0.1:41234 -> 8080"
	lines := bufio.NewScanner(stdout)
	require.True(t, lines.Scan(), "port-forward printed nothing: %v %s", lines.Err(), stderr.String())
	var local, remote int
	_, err = fmt.Sscanf(lines.Text(), "Forwarding from 127.0.0.1:%d -> %d", &local, &remote)
	require.NoError(t, err, "unexpected port-forward output %q", lines.Text())
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", local), 10*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	msg := "ping through port-forward\n"
	_, err = conn.Write([]byte(msg))
	require.NoError(t, err)
	got, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	assert.Equal(t, msg, got)
}

// AttachSees runs the pinned kubectl attach and appends numbered lines to
// the container log (kwok's attach shows only what is written from then on)
// until one of them comes out of the attach stream.
func AttachSees(t *testing.T, kubeconfig, namespace, pod string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, KubectlPath(), "--kubeconfig", kubeconfig, "-n", namespace, "attach", pod)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()

	seen := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), "attached-") {
				seen <- lines.Text()
				return
			}
		}
		close(seen)
	}()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case line, ok := <-seen:
			require.True(t, ok, "attach ended without showing the container's output")
			assert.Regexp(t, `^attached-\d+$`, line)
			return
		case <-ctx.Done():
			t.Fatal("attach showed nothing of what the container wrote")
		case <-tick.C:
			require.NoError(t, cluster.AppendLog(fmt.Sprintf("attached-%d", i)))
		}
	}
}

// LogsFollowShows runs the pinned kubectl logs -f and checks that the
// container's log lines stream out in order.
func LogsFollowShows(t *testing.T, kubeconfig, namespace, pod string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, KubectlPath(), "--kubeconfig", kubeconfig, "-n", namespace, "logs", "-f", pod)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	for _, want := range kubecluster.LogLines {
		require.True(t, lines.Scan(), "log stream ended early: %v", lines.Err())
		assert.Equal(t, want, lines.Text())
	}
}
