// Package proxy_test proves `kubectl zoo serve` with the real kubectl and
// client-go against a real kube-apiserver: two tenants side by side, each
// seeing a whole cluster of its own.
package proxy_test

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// tenants installs kubectl-zoo and creates the tenants acme and beta once per
// test binary.
func tenants(t *testing.T) {
	t.Helper()
	framework.InstallTenants(t)
}

// served is one running `kubectl zoo serve`.
type served struct {
	Tenant     string
	Kubeconfig string
	Addr       string
	cmd        *exec.Cmd
	stderr     *strings.Builder
	done       chan error

	// Line is what serve printed first (where it serves, as whom).
	Line string
}

// serve starts `kubectl zoo serve --tenant` as a subprocess and stops it
// (SIGTERM, expecting exit 0) when the test ends.
func serve(t *testing.T, tenant string, extra ...string) *served {
	t.Helper()
	tenants(t)
	s := startServe(t, tenant, filepath.Join(t.TempDir(), tenant+".kubeconfig"), 0, extra...)
	t.Cleanup(func() { s.stop(t) })
	return s
}

func startServe(t *testing.T, tenant, kubeconfig string, port int, extra ...string) *served {
	t.Helper()
	args := append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "serve", "--tenant", tenant,
		"--kubeconfig-out", kubeconfig, "-v=2", "--port", strconv.Itoa(port)}, extra...)
	return startServeArgs(t, tenant, kubeconfig, args)
}

// startServeArgs starts `kubectl-zoo args...`, a serve of tenant writing
// kubeconfig, and waits for the line that says where it serves.
func startServeArgs(t *testing.T, tenant, kubeconfig string, args []string) *served {
	t.Helper()
	cmd := exec.Command(framework.ZooPath(t), args...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	s := &served{Tenant: tenant, Kubeconfig: kubeconfig, cmd: cmd, stderr: &strings.Builder{}, done: make(chan error, 1)}
	cmd.Stderr = &lockedBuilder{b: s.stderr}
	require.NoError(t, cmd.Start())
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		for sc.Scan() {
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case l, ok := <-line:
		require.True(t, ok, "serve printed nothing; stderr: %s", s.stderr)
		require.Contains(t, l, "export KUBECONFIG="+kubeconfig)
		require.Contains(t, l, "kubectl --context zoo-"+tenant+" get ns")
		s.Line = l
		_, rest, _ := strings.Cut(l, " on ")
		s.Addr, _, _ = strings.Cut(rest, ";")
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("serve did not start; stderr: %s", s.stderr)
	}
	return s
}

// servers starts two replicas of the multi-tenant server behind a
// round-robin balancer for the test.
func servers(t *testing.T) *framework.Balancer {
	t.Helper()
	tenants(t)
	r1, r2 := framework.StartReplica(t), framework.StartReplica(t)
	return framework.NewBalancer(t, false, r1.Addr, r2.Addr)
}

// viaServer is a served whose kubectl reaches the server behind lb as
// tenant's admin, with a client certificate the cluster signed.
func viaServer(t *testing.T, lb *framework.Balancer, tenant string) *served {
	t.Helper()
	auth := framework.ClusterCert(t, "zoo:"+tenant+":admin", "zoo:tenant:"+tenant)
	return &served{Tenant: tenant, Kubeconfig: framework.ServerKubeconfigFor(t, lb.URL(), auth), Addr: lb.URL()}
}

// stop sends SIGTERM and expects a clean exit.
func (s *served) stop(t *testing.T) {
	if s.cmd == nil || s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		assert.NoError(t, err, "serve must exit 0 on SIGTERM; stderr tail: %s", tail(s.stderr.String()))
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Errorf("serve did not stop within 20s of SIGTERM")
	}
}

// k runs the pinned kubectl through the proxy and fails the test on error.
func (s *served) k(t *testing.T, args ...string) string {
	t.Helper()
	res := s.run(t, "", args...)
	require.NoError(t, res.Err, "[%s] kubectl %v\nstdout: %s\nstderr: %s", s.Tenant, args, res.Stdout, res.Stderr)
	return res.Stdout
}

// run runs the pinned kubectl through the proxy.
func (s *served) run(t *testing.T, stdin string, args ...string) framework.Result {
	t.Helper()
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(t.Context(), in, framework.KubectlPath(), append([]string{"--kubeconfig", s.Kubeconfig}, args...)...)
}

// apply applies a manifest through the proxy.
func (s *served) apply(t *testing.T, manifest string, args ...string) string {
	t.Helper()
	res := s.run(t, manifest, append([]string{"apply", "-f", "-"}, args...)...)
	require.NoError(t, res.Err, "[%s] apply\nstdout: %s\nstderr: %s", s.Tenant, res.Stdout, res.Stderr)
	return res.Stdout
}

// admin runs kubectl against the upstream as its admin.
func admin(t *testing.T, args ...string) string {
	t.Helper()
	return framework.Kubectl(t, args...)
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// lockedBuilder is a strings.Builder safe for the process's writes.
type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func base64Decode(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.TrimSpace(s))
}

// localproxyCert is a serving certificate kept across proxy restarts.
type localproxyCert struct {
	cert tls.Certificate
	pem  []byte
}
