package cluster_test

import (
	"strings"
	"testing"

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

	t.Run("logs follow", func(t *testing.T) { framework.LogsFollowShows(t, c.Kubeconfig, "workload", pod) })

	t.Run("exec", func(t *testing.T) {
		out := framework.Kubectl(t, "-n", "workload", "exec", pod, "--", "echo", "exec-42")
		assert.Equal(t, "exec-42\n", out)
	})

	t.Run("exec stdin", func(t *testing.T) {
		res := framework.Run(t.Context(), []byte("through stdin\n"), framework.KubectlPath(),
			"--kubeconfig", c.Kubeconfig, "-n", "workload", "exec", "-i", pod, "--", "cat")
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "through stdin\n", res.Stdout)
	})

	t.Run("exec stays in the pod's sandbox", func(t *testing.T) {
		framework.ExecStaysInTheSandbox(t, c.Kubeconfig, "workload", pod)
	})

	t.Run("port-forward", func(t *testing.T) {
		framework.PortForwardEcho(t, c.Kubeconfig, "workload", "pod/"+pod, "8080")
	})

	// Last: attach shows only what the container writes from now on, so the
	// test writes to the log while attached.
	t.Run("attach", func(t *testing.T) {
		framework.AttachSees(t, c.Kubeconfig, "workload", pod)
	})
}
