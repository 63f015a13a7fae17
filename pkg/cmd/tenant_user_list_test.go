package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// TestTenantUserListGolden pins `tenant user list` in every output format.
func TestTenantUserListGolden(t *testing.T) {
	grants := []users.UserGrant{
		{Tenant: "acme", UpstreamUser: "alice@corp.example", User: "alice@corp.example"},
		{Tenant: "acme", UpstreamUser: "https://issuer.example#4711", User: "dev"},
		{Tenant: "globex", UpstreamUser: "oidc:bob", User: "bob"},
	}
	for _, tc := range []struct{ output, file string }{
		{"", "list.txt"}, {"yaml", "list.yaml"}, {"json", "list.json"}, {"name", "list.name"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.NoError(t, PrintUserGrants(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, tc.output, grants))
			assert.Empty(t, errOut.String())
			path := filepath.Join("..", "..", "testdata", "tenantusers", tc.file)
			if *update {
				require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run `go test ./pkg/cmd -run TestTenantUserListGolden -update` to create it")
			assert.Equal(t, string(want), out.String())
		})
	}
	t.Run("empty", func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.NoError(t, PrintUserGrants(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "", nil))
		assert.Empty(t, out.String())
		assert.Equal(t, "No upstream users granted.\n", errOut.String())
		out.Reset()
		require.NoError(t, PrintUserGrants(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "json", nil))
		assert.Equal(t, "{\n    \"items\": []\n}\n", out.String())
	})
}
