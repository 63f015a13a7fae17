package framework

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	tenantsOnce sync.Once
	tenantsErr  string
)

// InstallTenants runs `kubectl zoo install` and creates the tenants acme and
// beta, once per test binary (the cluster goes away with it).
func InstallTenants(t *testing.T) {
	t.Helper()
	tenantsOnce.Do(func() {
		for _, args := range [][]string{{"install"}, {"tenant", "create", "acme"}, {"tenant", "create", "beta"}} {
			res := Run(context.Background(), nil, ZooPath(t), append([]string{"--kubeconfig", Cluster().Kubeconfig}, args...)...)
			if res.Err != nil {
				tenantsErr = "kubectl zoo " + strings.Join(args, " ") + ": " + res.Err.Error() + "\n" + res.Stderr
				return
			}
		}
	})
	require.Empty(t, tenantsErr)
}
