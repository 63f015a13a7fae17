// Package fairshare_test proves each tenant's fair share (spec.policy.rateLimit
// of its record) in `kubectl zoo serve` and in the multi-tenant server against
// a real kube-apiserver, with the real kubectl: a burst beyond the limit gets
// 429 with Retry-After and a Status, watches held open take no in-flight slot,
// another tenant is unaffected, and kubectl waits and succeeds.
package fairshare_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// setRateLimit writes spec.policy.rateLimit of tenant's record, as `policy
// set --qps --burst --max-inflight` does (a merge patch leaves the rest of
// the policy as it is).
func setRateLimit(t *testing.T, tenant string, r policy.RateLimit) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"policy": policy.Policy{RateLimit: &r}}})
	require.NoError(t, err)
	client, err := dynamic.NewForConfig(framework.Cluster().Config)
	require.NoError(t, err)
	_, err = client.Resource(tenantapi.TenantGVR).Patch(t.Context(), tenant, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
}

// serve starts `kubectl zoo serve --tenant` and returns the kubeconfig it
// wrote; it is stopped (SIGTERM, exit 0 expected) when the test ends.
func serve(t *testing.T, tenant string) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), tenant+".kubeconfig")
	cmd := exec.Command(framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "serve", "--tenant", tenant,
		"--kubeconfig-out", kubeconfig)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	started := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		started <- sc.Scan() && strings.Contains(sc.Text(), "export KUBECONFIG="+kubeconfig)
		for sc.Scan() {
		}
		done <- cmd.Wait()
	}()
	select {
	case ok := <-started:
		require.True(t, ok, "serve did not start")
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("serve did not start within 30s")
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			assert.NoError(t, err, "serve must exit 0 on SIGTERM")
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("serve did not stop within 20s of SIGTERM")
		}
	})
	return kubeconfig
}
