package cluster_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: workload
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example/web:1
        ports:
        - containerPort: 8080
`

// TestDeploymentRunsAndStreams creates a namespace and a Deployment with the
// pinned kubectl, waits for its pod to run on the kwok node, and uses logs,
// exec, attach and port-forward against it.
func TestDeploymentRunsAndStreams(t *testing.T) {
	c := framework.Cluster()
	framework.Kubectl(t, "create", "namespace", "workload")
	res := framework.Run(t.Context(), []byte(deployment), framework.KubectlPath(), "--kubeconfig", c.Kubeconfig, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)

	framework.Kubectl(t, "-n", "workload", "rollout", "status", "deployment/web", "--timeout=90s")
	framework.Kubectl(t, "-n", "workload", "wait", "pod", "-l", "app=web", "--for=jsonpath={.status.phase}=Running", "--timeout=60s")
	pod := strings.TrimPrefix(framework.Kubectl(t, "-n", "workload", "get", "pod", "-l", "app=web", "-o", "name"), "pod/")
	pod = strings.TrimSpace(pod)
	require.NotEmpty(t, pod)
	node := framework.Kubectl(t, "-n", "workload", "get", "pod", pod, "-o", "jsonpath={.spec.nodeName}")
	assert.Equal(t, c.NodeName, node)

	t.Run("logs", func(t *testing.T) {
		out := framework.Kubectl(t, "-n", "workload", "logs", pod)
		assert.Equal(t, strings.Join(kubecluster.LogLines, "\n")+"\n", out)
	})

	t.Run("logs follow", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, framework.KubectlPath(), "--kubeconfig", c.Kubeconfig, "-n", "workload", "logs", "-f", pod)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		defer func() { cancel(); _ = cmd.Wait() }()
		lines := bufio.NewScanner(stdout)
		for _, want := range kubecluster.LogLines {
			require.True(t, lines.Scan(), "log stream ended early: %v", lines.Err())
			assert.Equal(t, want, lines.Text())
		}
	})

	t.Run("exec", func(t *testing.T) {
		out := framework.Kubectl(t, "-n", "workload", "exec", pod, "--", "sh", "-c", "echo exec-$((6*7))")
		assert.Equal(t, "exec-42\n", out)
	})

	t.Run("exec stdin", func(t *testing.T) {
		res := framework.Run(t.Context(), []byte("through stdin\n"), framework.KubectlPath(),
			"--kubeconfig", c.Kubeconfig, "-n", "workload", "exec", "-i", pod, "--", "sh", "-c", "read line; echo got: $line")
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "got: through stdin\n", res.Stdout)
	})

	t.Run("port-forward", func(t *testing.T) {
		portForwardEcho(t, c.Kubeconfig, "workload", "pod/"+pod)
	})

	// Last: attach shows only what the container writes from now on, so the
	// test writes to the log while attached.
	t.Run("attach", func(t *testing.T) {
		attachSees(t, c, "workload", pod)
	})
}

// attachSees runs kubectl attach and appends numbered lines to the
// container log until one of them comes out of the attach stream.
func attachSees(t *testing.T, c *kubecluster.Cluster, namespace, pod string) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, framework.KubectlPath(), "--kubeconfig", c.Kubeconfig, "-n", namespace, "attach", pod)
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
			require.NoError(t, c.AppendLog(fmt.Sprintf("attached-%d", i)))
		}
	}
}

// portForwardEcho runs kubectl port-forward to the pod's port 8080, which
// kwok serves with an echo, and checks that bytes go there and back.
func portForwardEcho(t *testing.T, kubeconfig, namespace, target string) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, framework.KubectlPath(), "--kubeconfig", kubeconfig, "-n", namespace,
		"port-forward", "--address=127.0.0.1", target, ":8080")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()

	// "Forwarding from 127.0.0.1:41234 -> 8080"
	lines := bufio.NewScanner(stdout)
	require.True(t, lines.Scan(), "port-forward printed nothing: %v", lines.Err())
	var local int
	_, err = fmt.Sscanf(lines.Text(), "Forwarding from 127.0.0.1:%d -> 8080", &local)
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
	require.NoError(t, err)
	assert.Equal(t, msg, got)
}
