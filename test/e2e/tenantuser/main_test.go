// Package tenantuser_test proves `kubectl zoo tenant user add|remove|list`
// against a real upstream: an upstream user the cluster authenticates (a
// client certificate with a non-zoo name stands in for an OIDC login) runs
// `kubectl zoo serve` as exactly the one tenant identity it was granted.
package tenantuser_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// zoo runs bin/kubectl-zoo with kubeconfig.
func zoo(t *testing.T, kubeconfig string, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}

// mustZoo runs bin/kubectl-zoo as the cluster admin and fails the test if
// it fails.
func mustZoo(t *testing.T, args ...string) string {
	t.Helper()
	res := zoo(t, framework.Cluster().Kubeconfig, args...)
	require.NoError(t, res.Err, "kubectl zoo %v\nstdout: %s\nstderr: %s", args, res.Stdout, res.Stderr)
	return res.Stdout
}

// upstreamUser is a user the cluster authenticates by a client certificate
// its signer issued, in no group: an OIDC or cloud IAM login stands so.
type upstreamUser struct {
	Name       string
	Kubeconfig string
}

func newUpstreamUser(t *testing.T, name string) upstreamUser {
	t.Helper()
	certPEM, keyPEM, err := framework.Cluster().SignClientCertificate(t.Context(), name)
	require.NoError(t, err)
	return upstreamUser{Name: name, Kubeconfig: framework.WriteClientKubeconfig(t, certPEM, keyPEM)}
}

// config is the user's REST config, impersonating imp.
func (u upstreamUser) config(t *testing.T, imp rest.ImpersonationConfig) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", u.Kubeconfig)
	require.NoError(t, err)
	cfg.Impersonate = imp
	return cfg
}

// proxy is a running `kubectl zoo serve` and the kubeconfig it wrote.
type proxy struct {
	Kubeconfig string
	cmd        *exec.Cmd
	stderr     *syncBuffer
	done       chan error
}

// serve runs `kubectl zoo serve` with the user's own login and waits until
// the kubeconfig it writes is there; it stops the proxy when the test ends.
func (u upstreamUser) serve(t *testing.T, args ...string) *proxy {
	t.Helper()
	out := filepath.Join(t.TempDir(), "tenant.kubeconfig")
	cmd := exec.Command(framework.ZooPath(t), append([]string{"--kubeconfig", u.Kubeconfig, "serve", "--port", "0", "--kubeconfig-out", out}, args...)...)
	p := &proxy{Kubeconfig: out, cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	require.Eventually(t, func() bool {
		_, err := os.Stat(out)
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "serve %v wrote no kubeconfig; stderr: %s", args, p.stderr)
	return p
}

// kubectl runs the pinned kubectl through the proxy.
func (p *proxy) kubectl(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", p.Kubeconfig}, args...)...)
}

// syncBuffer collects a process's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
