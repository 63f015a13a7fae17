// Package tenant_test proves `kubectl zoo install` and `kubectl zoo tenant
// ...` against a real upstream, and that the upstream itself confines tenant
// identities used directly (the attack suite).
package tenant_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// zoo and mustZoo run bin/kubectl-zoo as the cluster admin (framework/cli.go).
var zoo, mustZoo = framework.Zoo, framework.MustZoo

// install makes sure kubectl-zoo is installed (idempotent).
func install(t *testing.T) {
	t.Helper()
	mustZoo(t, "install")
}

// createTenant creates a tenant and deletes it when the test ends (waiting,
// so that the next test may reuse the name).
func createTenant(t *testing.T, name string, args ...string) {
	t.Helper()
	mustZoo(t, append([]string{"tenant", "create", name}, args...)...)
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig,
			"tenant", "delete", name)
	})
}

// allowStaticVolumes lets the tenants' PersistentVolumes name a CSI
// driver's volume by its handle (policy set --volume-sources csi), as a
// platform does that lets tenants make static volumes; createTenant's
// cleanup deletes the tenants with their grants.
func allowStaticVolumes(t *testing.T, tenants ...string) {
	t.Helper()
	for _, tenant := range tenants {
		mustZoo(t, "policy", "set", tenant, "--volume-sources", "csi")
	}
}

// kubectl runs the pinned kubectl as the admin, optionally with extra
// leading args (--as ...), without failing the test.
func kubectl(t *testing.T, stdin string, args ...string) framework.Result {
	t.Helper()
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(t.Context(), in, framework.KubectlPath(), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
}

// kubectlWith runs the pinned kubectl with another kubeconfig.
func kubectlWith(t *testing.T, kubeconfig, stdin string, args ...string) framework.Result {
	t.Helper()
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(t.Context(), in, framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}

// tokenKubeconfig writes a kubeconfig that authenticates with a bearer
// token (a ServiceAccount's).
func tokenKubeconfig(t *testing.T, token string) string {
	t.Helper()
	c := framework.Cluster()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["zoo"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.CACertPEM()}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["zoo"] = &clientcmdapi.Context{Cluster: "zoo", AuthInfo: "sa"}
	cfg.CurrentContext = "zoo"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// impersonating returns clients acting as a tenant identity.
func impersonating(t *testing.T, user string, groups ...string) (kubernetes.Interface, *rest.Config) {
	t.Helper()
	cfg := rest.CopyConfig(framework.Cluster().Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return client, cfg
}

// dynamicClient returns a dynamic client acting as the cluster admin.
func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(framework.Cluster().Config)
	require.NoError(t, err)
	return d
}
