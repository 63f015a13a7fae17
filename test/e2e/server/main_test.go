// Package server_test proves `kubectl zoo serve --listen`, the multi-tenant
// server, against a real kube-apiserver: two replicas as processes on
// loopback behind a small load balancer, each acting upstream with the
// ServiceAccount token that `kubectl zoo install --server` grants, and
// tenants acme and beta reaching them with client certificates the cluster
// signed and with tenant ServiceAccount tokens.
package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

var (
	setupOnce sync.Once
	setupErr  string
)

// setup installs kubectl-zoo with its server pieces and creates the tenants
// acme and beta once per test binary.
func setup(t *testing.T) {
	t.Helper()
	setupOnce.Do(func() {
		for _, args := range [][]string{{"install"}, {"tenant", "create", "acme"}, {"tenant", "create", "beta"}} {
			res := framework.Run(context.Background(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
			if res.Err != nil {
				setupErr = "kubectl zoo " + strings.Join(args, " ") + ": " + res.Err.Error() + "\n" + res.Stderr
				return
			}
		}
	})
	require.Empty(t, setupErr)
}
