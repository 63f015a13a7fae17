// Package server_test proves `kubectl zoo serve --listen`, the multi-tenant
// server, against a real kube-apiserver: two replicas as processes on
// loopback behind a small load balancer, each acting upstream with the
// ServiceAccount token that `kubectl zoo install --server` grants, and
// tenants acme and beta reaching them with client certificates the cluster
// signed and with tenant ServiceAccount tokens.
package server_test

import (
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// setup installs kubectl-zoo and creates the tenants acme and beta once per
// test binary.
func setup(t *testing.T) {
	t.Helper()
	framework.InstallTenants(t)
}
