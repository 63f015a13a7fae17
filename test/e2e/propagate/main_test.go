// Package propagate_test proves the propagation of tenant policies against a
// real kube-apiserver and kube-controller-manager (its ResourceQuota and
// ReplicaSet controllers): the ResourceQuota, LimitRange and NetworkPolicy a
// tenant's policy implies exist in every tenant namespace — made by `tenant
// create`, by `kubectl zoo serve` and by the multi-tenant server when a
// tenant creates a namespace, and kept by the server's reconcile loop — are
// read-only for the tenant (through the proxy, directly upstream and with a
// tenant pod's ServiceAccount token), and hold the tenant-wide quota.
package propagate_test

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// adminConfig is the upstream admin's REST config.
func adminConfig(t *testing.T) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	return cfg
}

// zooClient is tenantctl's client as the upstream admin.
func zooClient(t *testing.T) *tenantctl.Client {
	t.Helper()
	c, err := tenantctl.NewClient(adminConfig(t))
	require.NoError(t, err)
	return c
}

// createTenant installs kubectl-zoo (with acme and beta) and creates tenant
// name with `kubectl zoo tenant create`.
func createTenant(t *testing.T, name string) {
	t.Helper()
	framework.InstallTenants(t)
	res := framework.Run(t.Context(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "tenant", "create", name)
	require.NoError(t, res.Err, res.Stderr)
}

// storePolicy writes p to the tenant's spec.policy, and nothing else.
func storePolicy(t *testing.T, tenant string, p policy.Policy) {
	t.Helper()
	c := zooClient(t)
	u, err := c.Dynamic.Resource(tenantapi.TenantGVR).Get(t.Context(), tenant, metav1.GetOptions{})
	require.NoError(t, err)
	var rec tenantapi.Tenant
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &rec))
	require.NoError(t, tenantapi.SetPolicy(&rec, p))
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&rec)
	require.NoError(t, err)
	u.Object["spec"] = out["spec"]
	_, err = c.Dynamic.Resource(tenantapi.TenantGVR).Update(t.Context(), u, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// setPolicy stores p and reconciles the tenant's policy objects, as
// `kubectl zoo policy set` does.
func setPolicy(t *testing.T, tenant string, p policy.Policy) {
	t.Helper()
	storePolicy(t, tenant, p)
	require.NoError(t, policyctl.New(zooClient(t).Client).ReconcilePolicyObjects(t.Context(), tenant))
}

// asTenant is a clientset acting directly upstream as tenant's admin.
func asTenant(t *testing.T, tenant string) kubernetes.Interface {
	t.Helper()
	cfg := adminConfig(t)
	tn := translate.MustTenant(tenant)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: tn.UpstreamUser("admin"), Groups: tn.UpstreamGroups(nil, true)}
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return client
}

// tenantNamespaces are the upstream names of tenant's namespaces.
func tenantNamespaces(t *testing.T, tenant string) []string {
	t.Helper()
	list, err := framework.AdminClient(t).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{LabelSelector: translate.TenantLabel + "=" + tenant})
	require.NoError(t, err)
	var out []string
	for _, ns := range list.Items {
		if ns.DeletionTimestamp == nil {
			out = append(out, ns.Name)
		}
	}
	return out
}

// requirePolicyObjects checks that namespace ns holds the policy objects
// with their labels: the quota always, the NetworkPolicy and LimitRange
// when wanted.
func requirePolicyObjects(t *testing.T, tenant, ns string, netpol, limits bool) {
	t.Helper()
	admin := framework.AdminClient(t)
	want := map[string]string{translate.PropagatedFromLabel: translate.PropagatedFromPolicy, translate.TenantLabel: tenant}
	rq, err := admin.CoreV1().ResourceQuotas(ns).Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
	require.NoError(t, err, "the quota of %s", ns)
	assertLabels(t, want, rq.Labels)
	np, err := admin.NetworkingV1().NetworkPolicies(ns).Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
	if netpol {
		require.NoError(t, err, "the network policy of %s", ns)
		assertLabels(t, want, np.Labels)
	} else {
		require.Error(t, err, "no network policy in %s", ns)
	}
	lr, err := admin.CoreV1().LimitRanges(ns).Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
	if limits {
		require.NoError(t, err, "the limit range of %s", ns)
		assertLabels(t, want, lr.Labels)
	} else {
		require.Error(t, err, "no limit range in %s", ns)
	}
}

func assertLabels(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		assert.Equal(t, v, got[k], k)
	}
}

// pod is a minimal pod manifest.
func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
}

// served is one running `kubectl zoo serve --tenant`.
type served struct {
	kubeconfig string
	cmd        *exec.Cmd
	done       chan error
	mu         sync.Mutex
	stderr     strings.Builder
}

// serve starts `kubectl zoo serve --tenant tenant` and stops it (SIGTERM,
// exit 0) when the test ends.
func serve(t *testing.T, tenant string) *served {
	t.Helper()
	s := &served{kubeconfig: filepath.Join(t.TempDir(), tenant+".kubeconfig"), done: make(chan error, 1)}
	s.cmd = exec.Command(framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "serve", "--tenant", tenant,
		"--kubeconfig-out", s.kubeconfig, "--port", "0")
	stdout, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := s.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			close(ready)
		}
		for sc.Scan() {
		}
	}()
	go func() { s.done <- s.cmd.Wait() }()
	select {
	case <-ready:
	case err := <-s.done:
		t.Fatalf("serve exited: %v\n%s", err, s.log())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not start:\n%s", s.log())
	}
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-s.done:
			assert.NoError(t, err, "serve must exit 0 on SIGTERM:\n%s", s.log())
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			t.Errorf("serve did not stop within 20s of SIGTERM")
		}
	})
	return s
}

func (s *served) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// kubectl runs the pinned kubectl with kubeconfig.
func kubectl(ctx context.Context, kubeconfig, stdin string, args ...string) framework.Result {
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(ctx, in, framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
}
