package server_test

import (
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// serverKubeconfig is the upstream credential of the replicas.
func serverKubeconfig(t *testing.T) string {
	t.Helper()
	return framework.Cluster().Kubeconfig
}
