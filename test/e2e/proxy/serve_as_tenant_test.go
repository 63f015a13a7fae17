package proxy_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestServeWithTenantCertificate: a tenant user who may impersonate no one —
// its only credential a certificate from `kubectl zoo cert issue --signer
// kubernetes` — runs `kubectl zoo serve` with it, without --tenant, and uses
// the real kubectl through it: every request goes upstream as the
// certificate's identity (an impersonating request would be refused, since
// the identity may not impersonate), it works in its namespaces (CRUD, a
// pod's exec and logs), it gets clear refusals for what its identity may not
// do upstream (all-namespaces lists, creating namespaces and CRDs: a
// certificate never carries zoo:admins), and it sees nothing of beta's.
func TestServeWithTenantCertificate(t *testing.T) {
	tenants(t)
	const ns, hidden = "cert-work", "cert-hidden"
	certKC := tenantCertKubeconfig(t, "acme", "admin")
	for _, res := range []string{"users", "groups", "serviceaccounts", "userextras/scopes"} {
		out := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", certKC, "auth", "can-i", "impersonate", res)
		require.Error(t, out.Err, "the certificate's identity may impersonate %s: %s", res, out.Stdout)
		assert.Equal(t, "no\n", out.Stdout, res)
	}

	// The tenants' admins (through impersonating serves) make the namespaces.
	acmeAdmin, beta := serve(t, "acme"), serve(t, "beta")
	acmeAdmin.k(t, "create", "namespace", ns)
	beta.k(t, "create", "namespace", hidden)
	beta.k(t, "-n", hidden, "create", "configmap", "beta-only", "--from-literal=secret=beta")

	out := filepath.Join(t.TempDir(), "cert.kubeconfig")
	s := startServeArgs(t, "acme", out, []string{"--kubeconfig", certKC, "serve", "--kubeconfig-out", out, "-v=2", "--port", "0"})
	t.Cleanup(func() { s.stop(t) })
	assert.Contains(t, s.Line, "Serving tenant acme as admin with its own credential (no impersonation)")

	t.Run("in its namespace", func(t *testing.T) {
		assert.Equal(t, "namespace/"+ns+"\n", s.k(t, "get", "namespace", ns, "-o", "name"))
		s.k(t, "-n", ns, "create", "configmap", "cfg", "--from-literal=k=v")
		assert.Equal(t, "v", s.k(t, "-n", ns, "get", "configmap", "cfg", "-o", "jsonpath={.data.k}"))
		assert.Contains(t, lines(s.k(t, "-n", ns, "get", "configmaps", "-o", "name")), "configmap/cfg")
		assert.Equal(t, "v", admin(t, "-n", "acme-"+ns, "get", "configmap", "cfg", "-o", "jsonpath={.data.k}"))
		s.k(t, "-n", ns, "delete", "configmap", "cfg")
		res := s.run(t, "", "-n", ns, "get", "configmap", "cfg")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, `configmaps "cfg" not found`)
	})

	t.Run("a pod: exec, logs, port-forward", func(t *testing.T) {
		s.apply(t, `apiVersion: v1
kind: Pod
metadata:
  name: shell
  labels: {app: shell}
spec:
  containers:
  - name: c
    image: registry.example/shell:1
`, "-n", ns)
		pod := waitPod(t, s, ns, "app=shell")
		assert.Equal(t, "exec-42\n", s.k(t, "-n", ns, "exec", pod, "--", "echo", "exec-42"))
		framework.LogsFollowShows(t, s.Kubeconfig, ns, pod)
		framework.PortForwardEcho(t, s.Kubeconfig, ns, "pod/"+pod, "8080")
		s.k(t, "-n", ns, "delete", "pod", pod, "--wait=false")
	})

	t.Run("refused as upstream refuses its identity", func(t *testing.T) {
		res := s.run(t, "", "get", "configmaps", "-A")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "own credential, which may not list namespaces upstream")
		res = s.run(t, "", "create", "namespace", "cert-more")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "Forbidden")
		assert.Contains(t, res.Stderr, `cannot create resource "namespaces"`)
		res = s.run(t, crontabCRD, "create", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, `cannot create resource "customresourcedefinitions"`)
		assert.NotContains(t, admin(t, "get", "namespaces", "-o", "name"), "acme-cert-more")
		// Cluster-scoped reads are its identity's: refused, never a 503.
		for _, kind := range []string{"namespaces", "clusterroles", "clusterrolebindings", "customresourcedefinitions", "storageclasses", "priorityclasses"} {
			res := s.run(t, "", "get", kind)
			require.Error(t, res.Err, kind)
			assert.Contains(t, res.Stderr, "Forbidden", kind)
			assert.NotContains(t, res.Stderr, "unreachable", kind)
		}
	})

	t.Run("sees nothing of beta", func(t *testing.T) {
		// acme has no namespace of that name: Forbidden, as documented.
		res := s.run(t, "", "-n", hidden, "get", "configmaps")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "Forbidden")
		assert.NotContains(t, res.Stdout+res.Stderr, "beta-only")
		// Nor directly upstream, with the same credential.
		res = framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", certKC, "-n", "beta-"+hidden, "get", "configmaps")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "Forbidden")
		assert.NotContains(t, res.Stdout, "beta-only")
	})

	t.Run("a user who is no admin", func(t *testing.T) {
		devKC := tenantCertKubeconfig(t, "acme", "dev", "--group", "qa")
		out := filepath.Join(t.TempDir(), "dev.kubeconfig")
		dev := startServeArgs(t, "acme", out, []string{"--kubeconfig", devKC, "serve", "--tenant", "acme", "--user", "dev", "--group", "qa",
			"--kubeconfig-out", out, "--port", "0"})
		defer dev.stop(t)
		assert.Contains(t, dev.Line, "Serving tenant acme as dev with its own credential")
		res := dev.run(t, "", "-n", ns, "get", "configmaps")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, `User "dev" cannot list resource "configmaps"`)
	})

	acmeAdmin.k(t, "delete", "namespace", ns, "--wait=false")
	beta.k(t, "delete", "namespace", hidden, "--wait=false")
}

// TestServeRefusesCredentials: serve refuses, with one line and exit 1,
// flags that contradict a tenant identity's credential and a credential that
// is neither a tenant identity nor allowed to impersonate.
func TestServeRefusesCredentials(t *testing.T) {
	tenants(t)
	certKC := tenantCertKubeconfig(t, "acme", "admin")
	nobody := clusterCertKubeconfig(t, "carol")
	noGroup := clusterCertKubeconfig(t, "zoo:acme:mallory")
	for _, tc := range []struct {
		name, kubeconfig string
		args             []string
		want             string
	}{
		{"another tenant", certKC, []string{"--tenant", "beta"}, `--tenant beta contradicts your credential: your credential is user "admin" of tenant acme`},
		{"another user", certKC, []string{"--user", "bob"}, `--user bob contradicts your credential`},
		{"another group", certKC, []string{"--group", "ops"}, `--group ops contradicts your credential`},
		{"neither tenant nor impersonator", nobody, []string{"--tenant", "acme"}, `your credential (user "carol") is no tenant identity and may not impersonate zoo:acme:admin`},
		{"no tenant", nobody, nil, `--tenant is required: your credential (user "carol") is no tenant identity`},
		{"a zoo user outside its tenant's group", noGroup, nil, `your credential is no usable tenant identity: user "zoo:acme:mallory" is not in its tenant's group zoo:tenant:acme`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--kubeconfig", tc.kubeconfig, "serve", "--kubeconfig-out", filepath.Join(t.TempDir(), "kc")}, tc.args...)
			res := framework.Run(t.Context(), nil, framework.ZooPath(t), args...)
			var exit *exec.ExitError
			require.True(t, errors.As(res.Err, &exit), "serve must fail: %v %s", res.Err, res.Stdout)
			assert.Equal(t, 1, exit.ExitCode())
			assert.Equal(t, "error: ", res.Stderr[:min(len(res.Stderr), 7)])
			assert.Equal(t, 1, strings.Count(res.Stderr, "\n"), res.Stderr)
			assert.Contains(t, res.Stderr, tc.want)
			assert.Empty(t, res.Stdout)
		})
	}
}

// tenantCertKubeconfig issues a certificate of the cluster's signer for a
// tenant user with `kubectl zoo cert issue` and returns a kubeconfig of it
// for the API server.
func tenantCertKubeconfig(t *testing.T, tenant, user string, extra ...string) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), tenant+"-"+user+".kubeconfig")
	res := framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig,
		"cert", "issue", "--tenant", tenant, "--user", user, "--signer", "kubernetes", "--kubeconfig-out", kc}, extra...)...)
	require.NoError(t, res.Err, "%s\n%s", res.Stdout, res.Stderr)
	cfg, err := clientcmd.LoadFromFile(kc)
	require.NoError(t, err)
	c := framework.Cluster()
	for _, cl := range cfg.Clusters { // the API server's, even when a zoo server is installed
		cl.Server, cl.CertificateAuthorityData = c.Server, c.CACertPEM()
	}
	require.NoError(t, clientcmd.WriteToFile(*cfg, kc))
	return kc
}

// clusterCertKubeconfig is a kubeconfig for the API server with a client
// certificate the cluster signed for cn in orgs.
func clusterCertKubeconfig(t *testing.T, cn string, orgs ...string) string {
	t.Helper()
	auth := framework.ClusterCert(t, cn, orgs...)
	return framework.WriteClientKubeconfig(t, auth.ClientCertificateData, auth.ClientKeyData)
}
