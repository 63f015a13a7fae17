package server_test

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// replica is one running `kubectl zoo serve --listen`.
type replica struct {
	Addr     string
	AuditLog string
	cmd      *exec.Cmd
	stderr   *lockedBuilder
	done     chan error
}

var (
	servingOnce sync.Once
	serving     *kubecluster.ServingPair
)

// servingCert is the replicas' serving certificate (loopback) and the CA
// clients trust, made once per test binary.
func servingCert(t *testing.T) *kubecluster.ServingPair {
	t.Helper()
	servingOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zoo-server-pki-")
		require.NoError(t, err)
		serving, err = kubecluster.NewServingPair(dir)
		require.NoError(t, err)
	})
	require.NotNil(t, serving)
	return serving
}

// startReplica starts one server replica acting upstream with the server's
// kubeconfig; the test stops it (SIGTERM, expecting exit 0) unless it was
// stopped already.
func startReplica(t *testing.T) *replica {
	t.Helper()
	pki := servingCert(t)
	r := &replica{AuditLog: filepath.Join(t.TempDir(), "audit.log"), stderr: &lockedBuilder{}, done: make(chan error, 1)}
	r.cmd = exec.Command(framework.ZooPath(t), "--kubeconfig", serverKubeconfig(t), "serve",
		"--listen", "127.0.0.1:0", "--tls-cert-file", pki.CertFile, "--tls-private-key-file", pki.KeyFile,
		"--audit-log", r.AuditLog, "--shutdown-grace", "20s", "-v=2")
	stderr, err := r.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, r.cmd.Start())
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			r.stderr.WriteString(line + "\n")
			if a, ok := strings.CutPrefix(line, "Serving every tenant on https://"); ok {
				addr <- a
			}
		}
	}()
	go func() { r.done <- r.cmd.Wait() }()
	select {
	case r.Addr = <-addr:
	case err := <-r.done:
		t.Fatalf("the replica exited: %v\n%s", err, r.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("the replica did not start:\n%s", r.stderr.String())
	}
	t.Cleanup(func() { r.stop(t) })
	require.Eventually(t, func() bool {
		code, _ := get(t, r, "/readyz", nil, nil)
		return code == http.StatusOK
	}, 60*time.Second, 100*time.Millisecond, "the replica never got ready:\n%s", r.stderr)
	return r
}

// stop sends SIGTERM and requires a clean exit.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	if r.cmd.ProcessState != nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		assert.NoError(t, err, "the replica's exit:\n%s", r.stderr.String())
		r.done <- err
	case <-time.After(60 * time.Second):
		_ = r.cmd.Process.Kill()
		t.Errorf("the replica did not stop within a minute after SIGTERM:\n%s", r.stderr.String())
	}
}

// lockedBuilder is a strings.Builder safe for concurrent use.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) WriteString(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tenantKubeconfig writes a kubeconfig for the server at url that
// authenticates with a client certificate or a bearer token.
func tenantKubeconfig(t *testing.T, url string, auth *clientcmdapi.AuthInfo) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["zoo"] = &clientcmdapi.Cluster{Server: url, CertificateAuthorityData: servingCert(t).CAPEM}
	cfg.AuthInfos["user"] = auth
	cfg.Contexts["zoo"] = &clientcmdapi.Context{Cluster: "zoo", AuthInfo: "user"}
	cfg.CurrentContext = "zoo"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
