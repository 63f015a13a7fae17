package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
)

// certGolden compares got with testdata/certs/name (rewritten with -update).
func certGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "certs", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test ./pkg/cmd -run TestCert -update` to create it")
	assert.Equal(t, string(want), got)
}

// TestCertListGolden pins `cert list` in every output format, for
// certificates of both signers in each status.
func TestCertListGolden(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	revokedAt := now.Add(-time.Hour)
	list := []certs.Listed{
		{Serial: "1f2e3d", Tenant: "acme", User: "alice", Groups: []string{"dev", "ops"}, Signer: certs.SignerZoo,
			NotAfter: now.Add(30 * 24 * time.Hour), Status: certs.StatusValid},
		{Serial: "a0b1c2", Tenant: "acme", User: "bob", Signer: certs.SignerKubernetes,
			NotAfter: now.Add(-2 * time.Hour), Status: certs.StatusExpired},
		{Serial: "ffee01", Tenant: "globex", User: "ci", Groups: []string{"deploy"}, Signer: certs.SignerKubernetes,
			NotAfter: now.Add(20 * time.Hour), Status: certs.StatusRevoked, Revoked: &revokedAt},
	}
	for _, tc := range []struct{ output, file string }{
		{"", "list.txt"}, {"yaml", "list.yaml"}, {"json", "list.json"}, {"name", "list.name"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.NoError(t, PrintCertificates(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, tc.output, list, now))
			assert.Empty(t, errOut.String())
			certGolden(t, tc.file, out.String())
		})
	}
	t.Run("empty", func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.NoError(t, PrintCertificates(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "", nil, now))
		assert.Empty(t, out.String())
		assert.Equal(t, "No certificates found.\n", errOut.String())
		out.Reset()
		require.NoError(t, PrintCertificates(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "yaml", nil, now))
		assert.Equal(t, "items: []\n", out.String())
	})
}

// TestCertKubeconfigGolden pins the kubeconfig `cert issue` writes, and
// that it is written 0600 even over a wider existing file.
func TestCertKubeconfigGolden(t *testing.T) {
	issued := &certs.Issued{Tenant: "acme", Record: certs.Record{User: "alice"},
		CertPEM: []byte("-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n"),
		KeyPEM:  []byte("-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n")}
	ep := certs.Endpoint{Server: "https://zoo-server.zoo-system.svc", CAPEM: []byte("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"), ZooServer: true}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, certs.WriteKubeconfig(certs.Kubeconfig(issued, ep), path))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	certGolden(t, "kubeconfig.yaml", string(b))
	cfg, err := clientcmd.Load(b)
	require.NoError(t, err)
	assert.Equal(t, "zoo-acme-alice", cfg.CurrentContext)
}
