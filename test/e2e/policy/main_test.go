// Package policy_test proves `kubectl zoo policy set|show` and `install
// --default-policy` against a real kube-apiserver: the Pod Security level
// and the PriorityClasses of a tenant's policy hold through `kubectl zoo
// serve`, for the tenant identity directly upstream, and for the pods
// controllers create. One cluster for the package; tests share acme and
// beta and put acme's policy back when they end.
package policy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// The denials of each enforcer, as the tenant sees them.
const (
	byProxyPriority = "PriorityClass"
	byPriority      = "ValidatingAdmissionPolicy 'zoo-tenant-priority'"
	byPodSecurity   = `violates PodSecurity "baseline:latest"`
)

// tenantAs are kubectl's flags for acting as tenant's admin directly
// upstream.
func tenantAs(tenant string) []string {
	return []string{"--as", "zoo:" + tenant + ":admin", "--as-group", "zoo:tenant:" + tenant, "--as-group", "zoo:admins"}
}

// zoo and mustZoo run bin/kubectl-zoo as the cluster admin (framework/cli.go).
var zoo, mustZoo = framework.Zoo, framework.MustZoo

// kubectl runs the pinned kubectl with kubeconfig (the admin's when empty),
// stdin and args, without failing the test.
func kubectl(t *testing.T, kubeconfig, stdin string, args ...string) framework.Result {
	t.Helper()
	if kubeconfig == "" {
		kubeconfig = framework.Cluster().Kubeconfig
	}
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(t.Context(), in, framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}

// mustKubectl is kubectl failing the test on error; it returns stdout.
func mustKubectl(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	res := kubectl(t, kubeconfig, stdin, args...)
	require.NoError(t, res.Err, "kubectl %v\nstdout: %s\nstderr: %s", args, res.Stdout, res.Stderr)
	return res.Stdout
}

// serve runs `kubectl zoo serve --tenant` for the test and returns the
// kubeconfig it wrote, once kubectl answers through it.
func serve(t *testing.T, tenant string) string {
	t.Helper()
	framework.InstallTenants(t)
	kubeconfig := filepath.Join(t.TempDir(), tenant+".kubeconfig")
	cmd := exec.Command(framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "serve", "--tenant", tenant,
		"--kubeconfig-out", kubeconfig, "--port", "0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	require.Eventually(t, func() bool {
		if _, err := os.Stat(kubeconfig); err != nil {
			return false
		}
		return framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", kubeconfig, "get", "ns", "default").Err == nil
	}, 30*time.Second, 100*time.Millisecond, "serve did not come up; stderr: %s", &stderr)
	return kubeconfig
}

// resetPolicy puts acme's policy back to the defaults when the test ends.
func resetPolicy(t *testing.T, tenant string) {
	t.Helper()
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig,
			"policy", "set", tenant, "--pod-security", "", "--priority-classes", "")
	})
}

// saKubeconfig makes ServiceAccount name in the upstream namespace ns with
// every right there (zoo-tenant-admin), as a tenant admin would, and returns
// a kubeconfig with its token: a tenant pod's credentials.
func saKubeconfig(t *testing.T, ns, name string) string {
	t.Helper()
	framework.Kubectl(t, "create", "serviceaccount", name, "-n", ns)
	framework.Kubectl(t, "create", "rolebinding", name, "-n", ns, "--clusterrole=zoo-tenant-admin", "--serviceaccount="+ns+":"+name)
	token := strings.TrimSpace(framework.Kubectl(t, "create", "token", name, "-n", ns))
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: framework.Cluster().Server, CertificateAuthorityData: framework.Cluster().CACertPEM()}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "sa"}
	cfg.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
