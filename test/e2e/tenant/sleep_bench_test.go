package tenant_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// countingTransport counts the requests sent.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// BenchmarkSleepWake measures what `tenant sleep` and `tenant wake` cost a
// tenant with N Deployments (one replica each, pods that no node takes, so
// that only the API work is measured): upstream API requests and time of
// each, against the real API server. Run it with
// go test -run '^$' -bench BenchmarkSleepWake ./test/e2e/tenant/
func BenchmarkSleepWake(b *testing.B) {
	zooB := func(args ...string) {
		res := framework.Run(context.Background(), nil, framework.ZooPath(b), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
		require.NoError(b, res.Err, "kubectl zoo %v: %s", args, res.Stderr)
	}
	zooB("install")
	var requests atomic.Int64
	cfg := rest.CopyConfig(framework.Cluster().Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, n: &requests} })
	tc, err := tenantctl.NewClient(cfg)
	require.NoError(b, err)
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("deployments=%d", n), func(b *testing.B) {
			zooB("tenant", "create", "bench")
			b.Cleanup(func() { zooB("tenant", "delete", "bench") })
			for i := range n {
				_, err := framework.AdminClient(b).AppsV1().Deployments("bench-default").Create(b.Context(), benchDeployment(i), metav1.CreateOptions{})
				require.NoError(b, err)
			}
			var sleepReq, wakeReq int64
			var sleepTime, wakeTime time.Duration
			for b.Loop() {
				requests.Store(0)
				start := time.Now()
				res, err := tc.SleepTenant(b.Context(), "bench", tenantctl.SleepOptions{NoPods: true})
				require.NoError(b, err)
				require.Len(b, res.Changed, n)
				sleepTime += time.Since(start)
				sleepReq += requests.Swap(0)
				start = time.Now()
				res, err = tc.WakeTenant(b.Context(), "bench")
				require.NoError(b, err)
				require.Len(b, res.Changed, n)
				wakeTime += time.Since(start)
				wakeReq += requests.Load()
			}
			iters := float64(b.N)
			b.ReportMetric(float64(sleepReq)/iters, "sleep-requests/op")
			b.ReportMetric(float64(wakeReq)/iters, "wake-requests/op")
			b.ReportMetric(float64(sleepTime.Milliseconds())/iters, "sleep-ms/op")
			b.ReportMetric(float64(wakeTime.Milliseconds())/iters, "wake-ms/op")
		})
	}
}

// benchDeployment is Deployment i of the benchmark, its pod bound to no
// node.
func benchDeployment(i int) *appsv1.Deployment {
	labels := map[string]string{"app": fmt.Sprintf("b%d", i)}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("b%d", i)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"example.com/bench": "none"},
					Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}
