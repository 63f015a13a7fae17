package framework

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
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
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// Replica is one running `kubectl zoo serve --listen`, the multi-tenant
// server, on loopback.
type Replica struct {
	// Addr is its host:port; AuditLog the file of its audit lines.
	Addr     string
	AuditLog string
	cmd      *exec.Cmd
	stderr   *syncBuilder
	done     chan error
}

var (
	servingOnce sync.Once
	serving     *kubecluster.ServingPair
)

// ServingCert is the replicas' serving certificate (loopback) and the CA
// clients trust, made once per test binary.
func ServingCert(t *testing.T) *kubecluster.ServingPair {
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

// StartReplica starts one server replica acting upstream with the server's
// credential (ServerKubeconfig), with extra flags; the test stops it
// (SIGTERM, expecting exit 0) unless it was stopped already. It returns once
// the replica is ready.
func StartReplica(t *testing.T, extra ...string) *Replica {
	t.Helper()
	pki := ServingCert(t)
	r := &Replica{AuditLog: filepath.Join(t.TempDir(), "audit.log"), stderr: &syncBuilder{}, done: make(chan error, 1)}
	args := append([]string{"--kubeconfig", ServerKubeconfig(t), "serve",
		"--listen", "127.0.0.1:0", "--tls-cert-file", pki.CertFile, "--tls-private-key-file", pki.KeyFile,
		"--audit-log", r.AuditLog, "--shutdown-grace", "20s", "-v=2"}, extra...)
	r.cmd = exec.Command(ZooPath(t), args...)
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
	t.Cleanup(func() { r.Stop(t) })
	require.Eventually(t, func() bool {
		code, _ := r.Get(t, "/readyz", nil, nil)
		return code == http.StatusOK
	}, 60*time.Second, 100*time.Millisecond, "the replica never got ready:\n%s", r.stderr)
	return r
}

// Stop sends SIGTERM and requires a clean exit.
func (r *Replica) Stop(t *testing.T) {
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

// Stderr is what the replica printed so far.
func (r *Replica) Stderr() string { return r.stderr.String() }

// syncBuilder is a strings.Builder safe for concurrent use.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncBuilder) WriteString(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
}

func (l *syncBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ServerKubeconfigFor writes a kubeconfig for the multi-tenant server at url
// that authenticates with a client certificate or a bearer token.
func ServerKubeconfigFor(t *testing.T, url string, auth *clientcmdapi.AuthInfo) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["zoo"] = &clientcmdapi.Cluster{Server: url, CertificateAuthorityData: ServingCert(t).CAPEM}
	cfg.AuthInfos["user"] = auth
	cfg.Contexts["zoo"] = &clientcmdapi.Context{Cluster: "zoo", AuthInfo: "user"}
	cfg.CurrentContext = "zoo"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// Get GETs path on the replica with a client certificate (none when certPEM
// is nil) and returns the code and body.
func (r *Replica) Get(t *testing.T, path string, certPEM, keyPEM []byte) (int, string) {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(ServingCert(t).CAPEM))
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certPEM != nil {
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		require.NoError(t, err)
		cfg.Certificates = []tls.Certificate{cert}
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second}
	resp, err := client.Get("https://" + r.Addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// Scrape reads the replica's /metrics as the holder of the certificate.
func (r *Replica) Scrape(t *testing.T, certPEM, keyPEM []byte) string {
	t.Helper()
	code, body := r.Get(t, "/metrics", certPEM, keyPEM)
	require.Equal(t, http.StatusOK, code, body)
	return body
}

// ClusterCert has the cluster sign a client certificate for cn in orgs
// through the CSR API, as a platform administrator issues one.
func ClusterCert(t *testing.T, cn string, orgs ...string) *clientcmdapi.AuthInfo {
	t.Helper()
	certPEM, keyPEM, err := Cluster().SignClientCertificate(t.Context(), cn, orgs...)
	require.NoError(t, err)
	return &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
}

// SelfSignedCert is a client certificate for cn in orgs that no CA the
// server trusts signed.
func SelfSignedCert(t *testing.T, cn string, orgs ...string) *clientcmdapi.AuthInfo {
	t.Helper()
	certPEM, keyPEM, err := kubecluster.SelfSignedClientCertificate(cn, orgs...)
	require.NoError(t, err)
	return &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
}

var (
	upstreamOnce sync.Once
	upstreamPath string
	upstreamErr  error
)

// ServerKubeconfig is the upstream credential of the server replicas: a
// token of the ServiceAccount zoo-system/zoo-server (TokenRequest, one hour)
// with exactly the RBAC `kubectl zoo install --server` grants, which the
// first call installs (its Deployment's pods are kwok's, they serve nothing).
func ServerKubeconfig(t testing.TB) string {
	t.Helper()
	upstreamOnce.Do(func() {
		ctx := context.Background()
		res := Run(ctx, nil, ZooPath(t), "--kubeconfig", Cluster().Kubeconfig,
			"install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
		if upstreamErr = res.Err; upstreamErr != nil {
			upstreamErr = fmt.Errorf("kubectl zoo install --server: %w: %s", res.Err, res.Stderr)
			return
		}
		var tok *authenticationv1.TokenRequest
		tok, upstreamErr = AdminClient(t).CoreV1().ServiceAccounts(tenantapi.ServerNamespace).CreateToken(ctx, tenantapi.ServerName,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}, metav1.CreateOptions{})
		if upstreamErr != nil {
			return
		}
		c := Cluster()
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["upstream"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.CACertPEM()}
		cfg.AuthInfos["zoo-server"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
		cfg.Contexts["upstream"] = &clientcmdapi.Context{Cluster: "upstream", AuthInfo: "zoo-server"}
		cfg.CurrentContext = "upstream"
		upstreamPath = filepath.Join(c.Dir, "zoo-server.kubeconfig") // removed with the cluster's state
		upstreamErr = clientcmd.WriteToFile(*cfg, upstreamPath)
	})
	require.NoError(t, upstreamErr)
	return upstreamPath
}

// ServerMay asks the upstream, as its admin, whether the server's
// ServiceAccount may verb resource.group cluster-wide (a SubjectAccessReview:
// what RBAC, aggregated roles included, grants it now).
func ServerMay(t *testing.T, verb, group, resource string) bool {
	t.Helper()
	r, err := AdminClient(t).AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + tenantapi.ServerNamespace + ":" + tenantapi.ServerName,
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + tenantapi.ServerNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource},
		}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return r.Status.Allowed
}
