package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestExecStaysInTheSandbox: `kubectl exec` into a tenant's pod — through
// serve, through the multi-tenant server, and as the cluster admin directly —
// runs in the pod's sandbox of the local upstream's kwok and never on the
// machine that runs the cluster (issue #25, class 7).
func TestExecStaysInTheSandbox(t *testing.T) {
	s := serve(t, "acme")
	const ns = "exec-sandbox"
	s.k(t, "create", "namespace", ns)
	t.Cleanup(func() { s.run(t, "", "delete", "namespace", ns, "--wait=false") })
	s.k(t, "-n", ns, "run", "box", "--image=registry.example/box:1", "--labels=app=box")
	pod := waitPod(t, s, ns, "app=box")

	t.Run("serve", func(t *testing.T) { framework.ExecStaysInTheSandbox(t, s.Kubeconfig, ns, pod) })
	t.Run("server", func(t *testing.T) {
		framework.ExecStaysInTheSandbox(t, viaServer(t, servers(t), "acme").Kubeconfig, ns, pod)
	})
	t.Run("directly", func(t *testing.T) {
		framework.ExecStaysInTheSandbox(t, framework.Cluster().Kubeconfig, "acme-"+ns, pod)
	})
	assert.DirExists(t, filepath.Join(framework.Cluster().ExecSandbox, "acme-"+ns, pod),
		"the pod's sandbox is named by its upstream namespace and name")
}
