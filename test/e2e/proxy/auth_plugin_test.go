package proxy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestExecCredentialPlugin: serve reaches the upstream with credentials from
// a kubeconfig exec plugin (as with cloud and OIDC logins), not only with
// certificates written into the kubeconfig.
func TestExecCredentialPlugin(t *testing.T) {
	tenants(t)
	cfg, err := clientcmd.LoadFromFile(framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	ctx := cfg.Contexts[cfg.CurrentContext]
	require.NotNil(t, ctx)
	user := cfg.AuthInfos[ctx.AuthInfo]
	require.NotEmpty(t, user.ClientCertificateData)

	dir := t.TempDir()
	credential, err := json.Marshal(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1",
		"kind":       "ExecCredential",
		"status": map[string]any{
			"clientCertificateData": string(user.ClientCertificateData),
			"clientKeyData":         string(user.ClientKeyData),
		},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "credential.json"), credential, 0o600))
	calls := filepath.Join(dir, "calls")
	plugin := filepath.Join(dir, "zoo-credential-plugin")
	script := "#!/bin/sh\necho called >> '" + calls + "'\ncat '" + filepath.Join(dir, "credential.json") + "'\n"
	require.NoError(t, os.WriteFile(plugin, []byte(script), 0o700))

	cfg.AuthInfos[ctx.AuthInfo] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion:      "client.authentication.k8s.io/v1",
		Command:         plugin,
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}
	kubeconfig := filepath.Join(dir, "exec.kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, kubeconfig))

	acme := serve(t, "acme", "--kubeconfig", kubeconfig)
	out := acme.k(t, "get", "namespace", "default", "-o", "name")
	assert.Equal(t, "namespace/default\n", out)
	_, err = os.Stat(calls)
	assert.NoError(t, err, "the exec plugin was never called")
}
