package proxy_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

var issuedSerial = regexp.MustCompile(`certificate ([0-9a-f]+) for user`)

// issueClusterCert issues a certificate of the cluster's signer for acme's
// user with `kubectl zoo cert issue` and returns its serial and a
// kubeconfig of it for the API server (as the command writes it when no zoo
// server is installed: it impersonates the tenant user).
func issueClusterCert(t *testing.T, user string, extra ...string) (serial, kubeconfig string) {
	t.Helper()
	kc := filepath.Join(t.TempDir(), user+".kubeconfig")
	res := framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig,
		"cert", "issue", "--tenant", "acme", "--user", user, "--signer", "kubernetes", "--kubeconfig-out", kc}, extra...)...)
	require.NoError(t, res.Err, "%s\n%s", res.Stdout, res.Stderr)
	m := issuedSerial.FindStringSubmatch(res.Stdout)
	require.NotNil(t, m, res.Stdout)
	return m[1], repoint(t, kc, framework.Cluster().Server, framework.Cluster().CACertPEM(), true)
}

// repoint writes a copy of kubeconfig pointed at server (trusting ca), with
// or without the impersonation it carries.
func repoint(t *testing.T, kubeconfig, server string, ca []byte, impersonate bool) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	require.NoError(t, err)
	for _, cl := range cfg.Clusters {
		cl.Server, cl.CertificateAuthorityData = server, ca
	}
	for _, a := range cfg.AuthInfos {
		if !impersonate {
			a.Impersonate, a.ImpersonateGroups = "", nil
		}
	}
	out := filepath.Join(t.TempDir(), "repointed.kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, out))
	return out
}

// kubectlAs runs the pinned kubectl with kubeconfig.
func kubectlAs(t *testing.T, kubeconfig string, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}

// TestRevokedClusterCertificateLosesUpstreamAccess: a certificate of the
// cluster's signer names a user of its own that may only impersonate its
// tenant identity. Before `cert revoke` it reads and writes directly
// upstream, through its holder's own `serve` and through the server; its
// own user can do nothing else (no read, no other identity, no zoo:admins).
// After the revoke, within a bounded wait, every path refuses it: upstream
// by RBAC (it may no longer impersonate: reads and writes alike), the server
// by its record (401). Another certificate of the same user keeps working,
// and nothing of acme's admin or of beta changes. Before this, a revoked
// certificate of the cluster's signer worked upstream until it expired.
func TestRevokedClusterCertificateLosesUpstreamAccess(t *testing.T) {
	tenants(t)
	const ns = "revoked-work"
	acme, beta := serve(t, "acme"), serve(t, "beta")
	acme.k(t, "create", "namespace", ns)
	acme.k(t, "-n", ns, "create", "configmap", "data", "--from-literal=k=v")
	acme.k(t, "-n", ns, "create", "rolebinding", "carol", "--clusterrole=edit", "--user=carol")
	betaBefore := beta.k(t, "get", "configmaps", "-n", "default", "-o", "name")
	upstreamNS := "acme-" + ns

	serial, kc := issueClusterCert(t, "carol", "--group", "ops", "--ttl", "1h")
	_, other := issueClusterCert(t, "carol", "--ttl", "1h")
	raw := repoint(t, kc, framework.Cluster().Server, framework.Cluster().CACertPEM(), false)
	viaSrv := repoint(t, kc, servers(t).URL(), framework.ServingCert(t).CAPEM, true)
	out := filepath.Join(t.TempDir(), "carol-serve.kubeconfig")
	own := startServeArgs(t, "acme", out, []string{"--kubeconfig", kc, "serve", "--kubeconfig-out", out, "--port", "0"})
	t.Cleanup(func() { own.stop(t) })
	assert.Contains(t, own.Line, "Serving tenant acme as carol with its own credential")

	works := func(t *testing.T, name string) {
		require.Eventually(t, func() bool { // RBAC's cache learns the grant and the binding
			return kubectlAs(t, kc, "-n", upstreamNS, "get", "configmap", "data").Err == nil
		}, 30*time.Second, 200*time.Millisecond, "the certificate reads upstream")
		res := kubectlAs(t, kc, "-n", upstreamNS, "create", "configmap", name)
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "v", own.k(t, "-n", ns, "get", "configmap", "data", "-o", "jsonpath={.data.k}"), "through its own serve")
		res = kubectlAs(t, viaSrv, "-n", ns, "get", "configmap", "data", "-o", "jsonpath={.data.k}")
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "v", res.Stdout, "through the server")
	}
	t.Run("before the revoke", func(t *testing.T) {
		works(t, "before")
		who := kubectlAs(t, raw, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
		require.NoError(t, who.Err, who.Stderr)
		assert.Regexp(t, "^"+platformobj.CertUserPrefix+"acme:[0-9a-f]{32}$", who.Stdout, "a user of its own")
		for _, args := range [][]string{
			{"-n", upstreamNS, "get", "configmaps"},                                     // its own user: no read
			{"-n", upstreamNS, "create", "configmap", "own"},                            // nor write
			{"-n", upstreamNS, "get", "configmaps", "--as", "zoo:acme:admin"},           // another identity
			{"-n", "beta-default", "get", "configmaps", "--as", "zoo:beta:admin"},       // another tenant's
			{"get", "namespaces", "--as", "zoo:acme:carol", "--as-group", "zoo:admins"}, // the admins' group
		} {
			res := kubectlAs(t, raw, args...)
			require.Error(t, res.Err, "%v must be refused:\n%s", args, res.Stdout)
			assert.Contains(t, strings.ToLower(res.Stderr), "forbidden", "%v: refused by upstream RBAC", args)
		}
	})

	res := framework.Run(t.Context(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "cert", "revoke", serial)
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stdout, "as a user that may do nothing")

	t.Run("after the revoke", func(t *testing.T) {
		// Bounded by RBAC's informer: the grant is gone when revoke returns.
		require.Eventually(t, func() bool {
			return kubectlAs(t, kc, "-n", upstreamNS, "get", "configmap", "data").Err != nil
		}, 30*time.Second, 200*time.Millisecond, "the revoked certificate loses its reads upstream")
		for _, args := range [][]string{
			{"-n", upstreamNS, "get", "configmap", "data"},
			{"-n", upstreamNS, "create", "configmap", "after"},
			{"-n", upstreamNS, "get", "configmaps", "--as", "zoo:acme:carol"}, // without its groups
		} {
			res := kubectlAs(t, kc, args...)
			require.Error(t, res.Err, "%v must be refused:\n%s", args, res.Stdout)
			assert.Contains(t, res.Stderr, "cannot impersonate resource", "%v: refused by upstream RBAC", args)
		}
		res := own.run(t, "", "-n", ns, "get", "configmap", "data")
		require.Error(t, res.Err, "through its own serve")
		assert.Contains(t, res.Stderr, "Forbidden")
		require.Eventually(t, func() bool {
			res := kubectlAs(t, viaSrv, "-n", ns, "get", "configmap", "data")
			return res.Err != nil && strings.Contains(res.Stderr, "certificate "+serial+" is revoked")
		}, 10*time.Second, 100*time.Millisecond, "the server refuses it by its record")

		// Per certificate: carol's other one, acme's admin and beta are untouched.
		require.NoError(t, kubectlAs(t, other, "-n", upstreamNS, "get", "configmap", "data").Err, "carol's other certificate")
		assert.Equal(t, "v", acme.k(t, "-n", ns, "get", "configmap", "data", "-o", "jsonpath={.data.k}"))
		assert.Equal(t, betaBefore, beta.k(t, "get", "configmaps", "-n", "default", "-o", "name"))
		assert.NotContains(t, admin(t, "get", "configmaps", "-n", upstreamNS, "-o", "name"), "configmap/after")
	})
	acme.k(t, "delete", "namespace", ns, "--wait=false")
}
