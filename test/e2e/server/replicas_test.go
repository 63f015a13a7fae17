package server_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
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

// servingPKI is the replicas' serving certificate (127.0.0.1) and the CA
// clients trust, made once per test binary.
type servingPKI struct {
	CAPEM, CertFile, KeyFile string
}

var (
	servingOnce sync.Once
	serving     servingPKI
)

func servingCert(t *testing.T) servingPKI {
	t.Helper()
	servingOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zoo-server-pki-")
		require.NoError(t, err)
		caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "zoo-server-e2e-ca"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
		caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
		require.NoError(t, err)
		ca, err := x509.ParseCertificate(caDER)
		require.NoError(t, err)
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "zoo-server"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		keyDER, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		serving = servingPKI{CAPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})),
			CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key")}
		require.NoError(t, os.WriteFile(serving.CertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
		require.NoError(t, os.WriteFile(serving.KeyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	})
	require.NotEmpty(t, serving.CertFile)
	return serving
}

// startReplica starts one server replica acting upstream with the server's
// kubeconfig, with extra flags if given; the test stops it (SIGTERM,
// expecting exit 0) unless it was stopped already.
func startReplica(t *testing.T, extra ...string) *replica {
	t.Helper()
	pki := servingCert(t)
	r := &replica{AuditLog: filepath.Join(t.TempDir(), "audit.log"), stderr: &lockedBuilder{}, done: make(chan error, 1)}
	r.cmd = exec.Command(framework.ZooPath(t), append([]string{"--kubeconfig", serverKubeconfig(t), "serve",
		"--listen", "127.0.0.1:0", "--tls-cert-file", pki.CertFile, "--tls-private-key-file", pki.KeyFile,
		"--audit-log", r.AuditLog, "--shutdown-grace", "20s", "-v=2"}, extra...)...)
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
	cfg.Clusters["zoo"] = &clientcmdapi.Cluster{Server: url, CertificateAuthorityData: []byte(servingCert(t).CAPEM)}
	cfg.AuthInfos["user"] = auth
	cfg.Contexts["zoo"] = &clientcmdapi.Context{Cluster: "zoo", AuthInfo: "user"}
	cfg.CurrentContext = "zoo"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
