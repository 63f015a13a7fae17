package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/keyutil"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// revocationBound is the bound docs/server.md gives for a revocation to
// reach every replica (the Tenant informer's watch).
const revocationBound = 5 * time.Second

// zooCAReplicas starts two replicas that also accept the zoo CA (as
// install --server passes it), behind a round-robin balancer.
func zooCAReplicas(t *testing.T) (*framework.Balancer, []*framework.Replica) {
	t.Helper()
	setup(t)
	framework.ServerKubeconfig(t) // install --server: the zoo CA
	cm, err := framework.AdminClient(t).CoreV1().ConfigMaps(tenantapi.ServerNamespace).Get(t.Context(), certs.ZooCAConfigMap, metav1.GetOptions{})
	require.NoError(t, err)
	caFile := filepath.Join(t.TempDir(), "zoo-ca.crt")
	require.NoError(t, os.WriteFile(caFile, []byte(cm.Data[tenantapi.ServerCAKey]), 0o600))
	r1 := framework.StartReplica(t, "--client-ca-file", caFile)
	r2 := framework.StartReplica(t, "--client-ca-file", caFile)
	return framework.NewBalancer(t, false, r1.Addr, r2.Addr), []*framework.Replica{r1, r2}
}

// zooCert runs `kubectl zoo cert ...` as the cluster admin.
func zooCert(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "cert"}, args...)...)
}

var serialRE = regexp.MustCompile(`certificate ([0-9a-f]+) for user`)

// issue issues a certificate with `cert issue` for the server at url and
// returns its serial and kubeconfig. The written kubeconfig trusts the
// installed server's CA (checked); the replicas on loopback serve the test's
// own certificate, so the test trusts that one instead.
func issue(t *testing.T, url string, args ...string) (serial, kubeconfig string) {
	t.Helper()
	kubeconfig = filepath.Join(t.TempDir(), "issued.kubeconfig")
	res := zooCert(t, append([]string{"issue", "--server-url", url, "--kubeconfig-out", kubeconfig}, args...)...)
	require.NoError(t, res.Err, "%s\n%s", res.Stdout, res.Stderr)
	m := serialRE.FindStringSubmatch(res.Stdout)
	require.NotNil(t, m, res.Stdout)
	st, err := os.Stat(kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	require.NoError(t, err)
	cm, err := framework.AdminClient(t).CoreV1().ConfigMaps(tenantapi.ServerNamespace).Get(t.Context(), tenantapi.ServerCAConfigMap, metav1.GetOptions{})
	require.NoError(t, err)
	cluster := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	assert.Equal(t, url, cluster.Server)
	assert.Equal(t, cm.Data[tenantapi.ServerCAKey], string(cluster.CertificateAuthorityData))
	cluster.CertificateAuthorityData = framework.ServingCert(t).CAPEM
	require.NoError(t, clientcmd.WriteToFile(*cfg, kubeconfig))
	return m[1], kubeconfig
}

// whoami is the user the server says the kubeconfig's credential is, or the
// error.
func whoami(t *testing.T, kubeconfig string) (string, error) {
	t.Helper()
	review, err := clientFor(t, kubeconfig).AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return review.Status.UserInfo.Username + " " + strings.Join(review.Status.UserInfo.Groups, ","), nil
}

// atReplicas is the kubeconfig pointed at each replica directly.
func atReplicas(t *testing.T, kubeconfig string, replicas []*framework.Replica) []string {
	t.Helper()
	var out []string
	for _, r := range replicas {
		cfg, err := clientcmd.LoadFromFile(kubeconfig)
		require.NoError(t, err)
		for _, c := range cfg.Clusters {
			c.Server = "https://" + r.Addr
		}
		path := filepath.Join(t.TempDir(), "replica.kubeconfig")
		require.NoError(t, clientcmd.WriteToFile(*cfg, path))
		out = append(out, path)
	}
	return out
}

// TestCertIssueBothSignersAndRevoke: certificates of both signers work
// through two replicas; a revoked one is refused by every replica within
// revocationBound; a revoked kubernetes-signed one is still authenticated
// directly upstream, as a user of its own that may no longer impersonate
// its tenant identity (as the command says); an expired one is refused at
// once.
func TestCertIssueBothSignersAndRevoke(t *testing.T) {
	lb, replicas := zooCAReplicas(t)
	zooSerial, zooKC := issue(t, lb.URL(), "--tenant", "acme", "--user", "alice", "--group", "dev", "--signer", "zoo")
	k8sSerial, k8sKC := issue(t, lb.URL(), "--tenant", "acme", "--user", "bob", "--group", "zoo:acme:ops", "--ttl", "1h")
	for _, kc := range append([]string{zooKC}, atReplicas(t, zooKC, replicas)...) {
		for range 2 {
			who, err := whoami(t, kc)
			require.NoError(t, err)
			assert.Equal(t, "alice dev,system:authenticated", who)
		}
	}
	for _, kc := range append([]string{k8sKC}, atReplicas(t, k8sKC, replicas)...) {
		who, err := whoami(t, kc)
		require.NoError(t, err)
		assert.Equal(t, "bob ops,system:authenticated", who)
	}

	list := zooCert(t, "list", "--tenant", "acme", "-o", "json")
	require.NoError(t, list.Err, list.Stderr)
	var got certs.CertificateList
	require.NoError(t, json.Unmarshal([]byte(list.Stdout), &got))
	bySerial := map[string]certs.Listed{}
	for _, c := range got.Items {
		bySerial[c.Serial] = c
	}
	assert.Equal(t, certs.Listed{Serial: zooSerial, Tenant: "acme", User: "alice", Groups: []string{"dev"}, Signer: "zoo",
		NotAfter: bySerial[zooSerial].NotAfter, Status: "valid"}, bySerial[zooSerial])
	assert.Equal(t, "kubernetes", bySerial[k8sSerial].Signer)
	assert.WithinDuration(t, time.Now().Add(time.Hour), bySerial[k8sSerial].NotAfter, 2*time.Minute)

	// Revoke the zoo certificate by serial: every replica refuses it.
	res := zooCert(t, "revoke", zooSerial)
	require.NoError(t, res.Err, res.Stderr)
	assert.Equal(t, "certificate "+zooSerial+" of user alice of tenant acme revoked\n", res.Stdout)
	start := time.Now()
	for _, kc := range atReplicas(t, zooKC, replicas) {
		require.Eventually(t, func() bool {
			_, err := whoami(t, kc)
			return apierrors.IsUnauthorized(err)
		}, revocationBound, 10*time.Millisecond, "a revoked certificate must be refused within %s", revocationBound)
	}
	t.Logf("revocation reached both replicas after %s", time.Since(start))
	_, err := whoami(t, zooKC)
	require.True(t, apierrors.IsUnauthorized(err), "%v", err)
	assert.Contains(t, err.Error(), "certificate "+zooSerial+" is revoked")

	// Revoke bob's certificates by user: the server refuses, and upstream
	// the certificate's user may no longer act as bob.
	upstream := upstreamKubeconfig(t, k8sKC)
	who, err := whoami(t, upstream)
	require.NoError(t, err, "before the revoke, upstream the certificate acts as bob")
	assert.Equal(t, "zoo:acme:bob zoo:tenant:acme,zoo:acme:ops,system:authenticated", who)
	res = zooCert(t, "revoke", "--tenant", "acme", "--user", "bob")
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stdout, "as a user that may do nothing")
	for _, kc := range atReplicas(t, k8sKC, replicas) {
		require.Eventually(t, func() bool {
			_, err := whoami(t, kc)
			return apierrors.IsUnauthorized(err)
		}, revocationBound, 10*time.Millisecond)
	}
	require.Eventually(t, func() bool {
		_, err = whoami(t, upstream)
		return apierrors.IsForbidden(err)
	}, revocationBound, 10*time.Millisecond, "upstream, the revoked certificate may no longer impersonate bob")
	assert.Contains(t, err.Error(), "cannot impersonate resource")

	list = zooCert(t, "list", "--tenant", "acme")
	require.NoError(t, list.Err)
	assert.Regexp(t, zooSerial+` +acme +alice +dev +zoo +\S+ \(\S+\) +revoked`, list.Stdout)

	// An expired certificate of the zoo CA is refused at once.
	expired := expiredZooCert(t)
	for _, r := range replicas {
		_, err := whoami(t, framework.ServerKubeconfigFor(t, "https://"+r.Addr, expired))
		assert.True(t, apierrors.IsUnauthorized(err), "%v", err)
	}
}

// upstreamKubeconfig points a kubeconfig's credential at the API server.
func upstreamKubeconfig(t *testing.T, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	require.NoError(t, err)
	c := framework.Cluster()
	for _, cl := range cfg.Clusters {
		cl.Server, cl.CertificateAuthorityData = c.Server, c.CACertPEM()
	}
	path := filepath.Join(t.TempDir(), "upstream.kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// expiredZooCert is a certificate of acme's admin from the installed zoo CA
// that ended a minute ago.
func expiredZooCert(t *testing.T) *clientcmdapi.AuthInfo {
	t.Helper()
	s, err := framework.AdminClient(t).CoreV1().Secrets(tenantapi.ServerNamespace).Get(t.Context(), certs.ZooCASecret, metav1.GetOptions{})
	require.NoError(t, err)
	ca, caKey, err := (&certs.ZooCA{CertPEM: s.Data["tls.crt"], KeyPEM: s.Data["tls.key"]}).ParseZooCA()
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	certPEM, err := certs.SignWithCA(ca, caKey, "zoo:acme:admin", []string{"zoo:tenant:acme"}, key.Public(), time.Now().Add(-time.Hour), 59*time.Minute)
	require.NoError(t, err)
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	require.NoError(t, err)
	return &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
}

// TestCertIssueRefusesBadInput: every bad request is one line on stderr and
// exit 1, and issues nothing.
func TestCertIssueRefusesBadInput(t *testing.T) {
	setup(t)
	framework.ServerKubeconfig(t)
	before := zooCert(t, "list", "-o", "name")
	require.NoError(t, before.Err)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another tenant's group", []string{"issue", "--tenant", "acme", "--user", "eve", "--group", "zoo:beta:dev"}, `group "zoo:beta:dev" is refused: it names tenant "beta", not "acme"`},
		{"zoo:admins", []string{"issue", "--tenant", "acme", "--user", "eve", "--group", "zoo:admins"}, `group "zoo:admins" is refused`},
		{"system:masters", []string{"issue", "--tenant", "acme", "--user", "eve", "--group", "system:masters"}, `group "system:masters" is refused`},
		{"a tenant group", []string{"issue", "--tenant", "acme", "--user", "eve", "--group", "zoo:tenant:beta"}, `group "zoo:tenant:beta" is refused`},
		{"bad user", []string{"issue", "--tenant", "acme", "--user", "a:b"}, `user "a:b" may contain only letters`},
		{"no tenant", []string{"issue", "--user", "eve"}, "--tenant is required"},
		{"tenant that does not exist", []string{"issue", "--tenant", "ghost", "--user", "eve"}, `tenant "ghost" does not exist`},
		{"bad signer", []string{"issue", "--tenant", "acme", "--user", "eve", "--signer", "vault"}, `--signer must be "kubernetes" or "zoo"`},
		{"ttl too short", []string{"issue", "--tenant", "acme", "--user", "eve", "--ttl", "1s"}, "--ttl must be between"},
		{"revoke without selector", []string{"revoke"}, "give a SERIAL, or --tenant and --user"},
		{"revoke of an unknown serial", []string{"revoke", "abc123"}, "no tenant has a certificate with serial abc123"},
		{"list of an unknown tenant", []string{"list", "--tenant", "ghost"}, `tenant "ghost" does not exist`},
		{"list bad output", []string{"list", "-o", "wide"}, `--output must be one of json|yaml|name, not "wide"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := zooCert(t, tc.args...)
			require.Error(t, res.Err)
			assert.Equal(t, 1, res.Err.(interface{ ExitCode() int }).ExitCode())
			line := strings.TrimSuffix(res.Stderr, "\n")
			assert.NotContains(t, line, "\n", "one line")
			assert.Contains(t, line, tc.want)
		})
	}
	after := zooCert(t, "list", "-o", "name")
	require.NoError(t, after.Err)
	assert.Equal(t, before.Stdout, after.Stdout, "a refused request issues nothing")
}

// TestCertIssueConcurrentRecordsLoseNothing: certificates issued at once for
// one tenant are all recorded (the apply carries the resourceVersion it
// read and retries on Conflict).
func TestCertIssueConcurrentRecordsLoseNothing(t *testing.T) {
	setup(t)
	framework.ServerKubeconfig(t)
	const n = 6
	serials := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			out := filepath.Join(t.TempDir(), "kc")
			res := zooCert(t, "issue", "--tenant", "beta", "--user", "worker", "--signer", "zoo", "--kubeconfig-out", out)
			if assert.NoError(t, res.Err, res.Stderr) {
				if m := serialRE.FindStringSubmatch(res.Stdout); assert.NotNil(t, m) {
					serials[i] = m[1]
				}
			}
		})
	}
	wg.Wait()
	list := zooCert(t, "list", "--tenant", "beta", "-o", "name")
	require.NoError(t, list.Err)
	for _, s := range serials {
		assert.Contains(t, strings.Fields(list.Stdout), s)
	}
	res := zooCert(t, "revoke", "--tenant", "beta", "--user", "worker")
	require.NoError(t, res.Err, res.Stderr)
	assert.Equal(t, n, strings.Count(res.Stdout, " revoked\n"))
}

// TestCertRenewAndCompletion: renew issues a new certificate for the same
// identity and signer and revokes the old one; shell completion offers the
// recorded serials and users.
func TestCertRenewAndCompletion(t *testing.T) {
	setup(t)
	framework.ServerKubeconfig(t)
	kc := filepath.Join(t.TempDir(), "carol.kubeconfig")
	res := zooCert(t, "issue", "--tenant", "beta", "--user", "carol", "--group", "qa", "--signer", "zoo", "--kubeconfig-out", kc)
	require.NoError(t, res.Err, res.Stderr)
	old := serialRE.FindStringSubmatch(res.Stdout)[1]

	res = framework.Run(t.Context(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "__complete", "cert", "revoke", "")
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, strings.Fields(res.Stdout), old)
	res = framework.Run(t.Context(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "__complete", "cert", "revoke", "--tenant", "beta", "--user", "ca")
	require.NoError(t, res.Err, res.Stderr)
	assert.Equal(t, []string{"carol", ":4"}, strings.Fields(res.Stdout))

	res = zooCert(t, "renew", old, "--kubeconfig-out", kc, "--ttl", "2h")
	require.NoError(t, res.Err, res.Stderr)
	renewed := serialRE.FindStringSubmatch(res.Stdout)
	require.NotNil(t, renewed, res.Stdout)
	assert.NotEqual(t, old, renewed[1])
	assert.Contains(t, res.Stdout, "certificate "+old+" revoked\n")

	list := zooCert(t, "list", "--tenant", "beta", "-o", "json")
	require.NoError(t, list.Err)
	var got certs.CertificateList
	require.NoError(t, json.Unmarshal([]byte(list.Stdout), &got))
	status := map[string]certs.Listed{}
	for _, c := range got.Items {
		status[c.Serial] = c
	}
	assert.Equal(t, certs.StatusRevoked, status[old].Status)
	assert.Equal(t, certs.StatusValid, status[renewed[1]].Status)
	assert.Equal(t, []string{"qa"}, status[renewed[1]].Groups)
	assert.Equal(t, certs.SignerZoo, status[renewed[1]].Signer)
	assert.WithinDuration(t, time.Now().Add(2*time.Hour), status[renewed[1]].NotAfter, time.Minute)
}
