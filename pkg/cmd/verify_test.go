package cmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestVerifyFlags: bad flags are refused before anything is sent.
func TestVerifyFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"output", []string{"-o", "yaml"}, `--output must be table or json, not "yaml"`},
		{"argument", []string{"acme"}, `unknown command "acme"`},
		{"tenant and keep", []string{"--tenant", "acme", "--keep"}, "--keep and --yes do not apply"},
		{"tenant name", []string{"--tenant", "Acme"}, "--tenant: "},
		{"tenant and server", []string{"--tenant", "acme", "--server-url", "https://zoo.example.com"}, "--server-url and --server-ca do not apply"},
		{"data plane without image", []string{"--data-plane"}, "--data-plane and --image go together"},
		{"image without data plane", []string{"--image", "busybox"}, "--data-plane and --image go together"},
		{"tenant and data plane", []string{"--tenant", "acme", "--data-plane", "--image", "busybox"}, "--data-plane does not apply"},
		{"server CA file", []string{"--server-ca", "/nonexistent/ca.pem"}, "read --server-ca: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			root := NewCmdZoo(streams)
			root.SilenceErrors = true
			root.SetArgs(append([]string{"--kubeconfig", "/nonexistent", "verify"}, tc.args...))
			err := root.Execute()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, out.String())
		})
	}
}
