// Package tenantprop_test proves two tenant policies of issue #15 against a
// real upstream, through `kubectl zoo serve`, through two replicas of the
// server, and directly upstream: the namespace limit (maxNamespaces) and
// the propagation of the Secrets and ConfigMaps a tenant marks.
package tenantprop_test

import (
	"bufio"
	"context"
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
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

var installOnce sync.Once

// newTenant installs kubectl-zoo (once) and creates tenant, deleting it when
// the test ends; policy, when set, is stored as its spec.policy (what
// `kubectl zoo policy set` writes).
func newTenant(t *testing.T, tenant, policy string) {
	t.Helper()
	installOnce.Do(func() { zoo(t, "install") })
	zoo(t, "tenant", "create", tenant)
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "tenant", "delete", tenant)
	})
	if policy != "" {
		framework.Kubectl(t, "patch", "tenant", tenant, "--type", "merge", "-p", `{"spec":{"policy":`+policy+`}}`)
	}
}

// zoo runs bin/kubectl-zoo as the cluster admin and fails the test if it fails.
func zoo(t *testing.T, args ...string) string {
	t.Helper()
	res := framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
	require.NoError(t, res.Err, "kubectl zoo %v\nstdout: %s\nstderr: %s", args, res.Stdout, res.Stderr)
	return res.Stdout
}

// client is a way to reach a tenant's view: a kubeconfig, and flags.
type client struct {
	tenant     string
	kubeconfig string
	flags      []string
}

// k runs kubectl with the client's kubeconfig and fails the test on error.
func (c client) k(t *testing.T, args ...string) string {
	t.Helper()
	res := c.run(t, "", args...)
	require.NoError(t, res.Err, "[%s] kubectl %v\nstdout: %s\nstderr: %s", c.tenant, args, res.Stdout, res.Stderr)
	return res.Stdout
}

// run runs kubectl with the client's kubeconfig.
func (c client) run(t *testing.T, stdin string, args ...string) framework.Result {
	t.Helper()
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(t.Context(), in, framework.KubectlPath(), append(append([]string{"--kubeconfig", c.kubeconfig}, c.flags...), args...)...)
}

// apply applies a manifest and fails the test on error.
func (c client) apply(t *testing.T, manifest string) {
	t.Helper()
	res := c.run(t, manifest, "apply", "-f", "-")
	require.NoError(t, res.Err, "[%s] apply\nstdout: %s\nstderr: %s", c.tenant, res.Stdout, res.Stderr)
}

// serve starts `kubectl zoo serve --tenant` for the test.
func serve(t *testing.T, tenant string) client {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), tenant+".kubeconfig")
	cmd := exec.Command(framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "serve", "--tenant", tenant,
		"--kubeconfig-out", kubeconfig, "-v=2", "--port", strconv.Itoa(0))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	var mu sync.Mutex
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return stderr.Write(p) })
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
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
	select {
	case _, ok := <-line:
		require.True(t, ok, "serve printed nothing; stderr: %s", stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("serve did not start")
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			mu.Lock()
			defer mu.Unlock()
			assert.NoError(t, err, "serve must exit 0 on SIGTERM; stderr: %s", stderr.String())
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("serve did not stop within 20s of SIGTERM")
		}
	})
	return client{tenant: tenant, kubeconfig: kubeconfig}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// servers starts two replicas of the server behind a round-robin balancer
// and returns them and a client of tenant's admin through the balancer.
func servers(t *testing.T, tenant string) (client, []*framework.Replica) {
	t.Helper()
	r1, r2 := framework.StartReplica(t), framework.StartReplica(t)
	lb := framework.NewBalancer(t, false, r1.Addr, r2.Addr)
	return viaServer(t, lb.URL(), tenant), []*framework.Replica{r1, r2}
}

// viaServer is a client of tenant's admin reaching the server at url with a
// client certificate the cluster signed.
func viaServer(t *testing.T, url, tenant string) client {
	t.Helper()
	auth := framework.ClusterCert(t, "zoo:"+tenant+":admin", "zoo:tenant:"+tenant)
	return client{tenant: tenant, kubeconfig: framework.ServerKubeconfigFor(t, url, auth)}
}

// direct is the tenant's admin identity used directly against the upstream
// (the cluster admin, impersonating it).
func direct(tenant string) client {
	return client{tenant: tenant, kubeconfig: framework.Cluster().Kubeconfig,
		flags: []string{"--as", "zoo:" + tenant + ":admin", "--as-group", "zoo:tenant:" + tenant, "--as-group", "zoo:admins"}}
}

// asServiceAccount is a ServiceAccount of tenant's namespace ns (made
// here) used directly against the upstream with a token of its own.
func asServiceAccount(t *testing.T, tenant, ns, name string) client {
	t.Helper()
	ctx := t.Context()
	adm := framework.AdminClient(t)
	_, err := adm.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	tr, err := adm.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}, metav1.CreateOptions{})
	require.NoError(t, err)
	c := framework.Cluster()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["upstream"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.CACertPEM()}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["upstream"] = &clientcmdapi.Context{Cluster: "upstream", AuthInfo: "sa"}
	cfg.CurrentContext = "upstream"
	path := filepath.Join(t.TempDir(), "sa.kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return client{tenant: tenant, kubeconfig: path}
}

// asPropagator is the cluster admin impersonating the propagator identity
// (what the proxy and the server do to write copies).
func asPropagator() client {
	return client{tenant: "(propagator)", kubeconfig: framework.Cluster().Kubeconfig,
		flags: []string{"--as", "system:serviceaccount:zoo-system:zoo-propagator", "--as-group", "system:serviceaccounts"}}
}

// admin is the cluster admin directly upstream.
func admin() client {
	return client{tenant: "(admin)", kubeconfig: framework.Cluster().Kubeconfig}
}
