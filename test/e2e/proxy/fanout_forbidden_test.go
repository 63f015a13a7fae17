package proxy_test

import (
	"bufio"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestAllNamespacesLeaveOutForbidden: a tenant user bound in namespaces
// fb-a and fb-b, not fb-c, lists, watches and informs on pods across all
// namespaces, through serve and through the server: it gets fb-a's and
// fb-b's, and a warning naming fb-c. A user bound nowhere is refused.
func TestAllNamespacesLeaveOutForbidden(t *testing.T) {
	acme := serve(t, "acme")
	nss := []string{"fb-a", "fb-b", "fb-c"}
	for _, ns := range nss {
		acme.k(t, "create", "namespace", ns)
		t.Cleanup(func() { acme.run(t, "", "delete", "namespace", ns, "--wait=false") })
		acme.k(t, "-n", ns, "run", "p", "--image=busybox", "--labels=fb=1")
	}
	for _, ns := range nss[:2] {
		acme.k(t, "-n", ns, "create", "rolebinding", "fb-dev", "--clusterrole=view", "--user=fb-dev")
	}
	lb := servers(t)
	onServer := func(user string) *served {
		auth := framework.ClusterCert(t, "zoo:acme:"+user, "zoo:tenant:acme")
		return &served{Tenant: "acme", Kubeconfig: framework.ServerKubeconfigFor(t, lb.URL(), auth), Addr: lb.URL()}
	}
	for _, view := range []struct {
		name      string
		dev, none *served
	}{
		{"serve", serve(t, "acme", "--user", "fb-dev"), serve(t, "acme", "--user", "fb-none")},
		{"server", onServer("fb-dev"), onServer("fb-none")},
	} {
		t.Run(view.name, func(t *testing.T) {
			leftOut := func(t *testing.T, stderr, verb string) {
				t.Helper()
				_, warning, ok := strings.Cut(stderr, "Warning: the "+verb+" ")
				require.True(t, ok, "no warning: %s", stderr)
				warning, _, _ = strings.Cut(warning, "\n")
				_, names, ok := strings.Cut(warning, "leaves out the namespaces where you may not ")
				require.True(t, ok, warning)
				_, names, _ = strings.Cut(names, ": ")
				assert.Contains(t, strings.Split(names, ", "), "fb-c", warning)
				assert.NotContains(t, warning, "fb-a")
				assert.NotContains(t, warning, "acme-")
			}
			t.Run("get -A", func(t *testing.T) {
				res := view.dev.run(t, "", "get", "pods", "-A", "-l", "fb=1", "--no-headers", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name")
				require.NoError(t, res.Err, res.Stderr)
				assert.Equal(t, []string{"fb-a   p", "fb-b   p"}, lines(res.Stdout))
				leftOut(t, res.Stderr, "list")
			})
			t.Run("get -A -w", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				pod := "w-" + view.name
				cmd := exec.CommandContext(ctx, framework.KubectlPath(), "--kubeconfig", view.dev.Kubeconfig,
					"get", "pods", "-A", "-w", "-l", "fb in (1,"+pod+")", "--no-headers", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name")
				stdout, err := cmd.StdoutPipe()
				require.NoError(t, err)
				stderr := &lockedBuilder{b: &strings.Builder{}}
				cmd.Stderr = stderr
				require.NoError(t, cmd.Start())
				defer func() { cancel(); _ = cmd.Wait() }()
				sc := bufio.NewScanner(stdout)
				var got []string
				for !slices.Contains(got, "fb-b   "+pod) && sc.Scan() {
					got = append(got, sc.Text())
					if len(got) == 2 { // the list: the watch is next
						for _, ns := range []string{"fb-c", "fb-b"} {
							acme.k(t, "-n", ns, "run", pod, "--image=busybox", "--labels=fb="+pod)
						}
					}
				}
				cancel()
				_ = cmd.Wait()
				require.GreaterOrEqual(t, len(got), 2, stderr.b.String())
				assert.Equal(t, []string{"fb-a   p", "fb-b   p"}, got[:2], stderr.b.String())
				assert.Contains(t, got, "fb-b   "+pod, "the watch saw the new pod")
				for _, l := range got {
					assert.NotContains(t, l, "fb-c", "the watch saw the namespace it may not read")
				}
				leftOut(t, stderr.b.String(), "list")
				leftOut(t, stderr.b.String(), "watch")
			})
			t.Run("informer", func(t *testing.T) {
				cfg, err := clientcmd.BuildConfigFromFlags("", view.dev.Kubeconfig)
				require.NoError(t, err)
				cfg.WarningHandler = rest.NoWarnings{}
				cs, err := kubernetes.NewForConfig(cfg)
				require.NoError(t, err)
				factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
					informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "fb=1" }))
				inf := factory.Core().V1().Pods().Informer()
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				factory.Start(ctx.Done())
				defer func() { cancel(); factory.Shutdown() }()
				require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced), "the informer never synced")
				got := inf.GetStore().ListKeys()
				slices.Sort(got)
				assert.Equal(t, []string{"fb-a/p", "fb-b/p"}, got)
			})
			t.Run("bound nowhere", func(t *testing.T) {
				res := view.none.run(t, "", "get", "pods", "-A")
				require.Error(t, res.Err, res.Stdout)
				assert.Contains(t, res.Stderr, "(Forbidden)")
				assert.NotContains(t, res.Stderr, "acme-")
			})
		})
	}
}
