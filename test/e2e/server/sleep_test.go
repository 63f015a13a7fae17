package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const dozer = `apiVersion: apps/v1
kind: Deployment
metadata: {name: dozer, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: dozer}}
  template:
    metadata: {labels: {app: dozer}}
    spec: {containers: [{name: c, image: busybox}]}
`

// zooAdmin runs bin/kubectl-zoo as the cluster admin and fails the test
// on error.
func zooAdmin(t *testing.T, args ...string) string {
	t.Helper()
	res := framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
	require.NoError(t, res.Err, "kubectl zoo %v: %s", args, res.Stderr)
	return res.Stdout
}

// sleepState is acme's record's status.sleep (nil: never slept).
func sleepState(t *testing.T) *tenantapi.SleepState {
	t.Helper()
	dyn, err := dynamic.NewForConfig(framework.Cluster().Config)
	require.NoError(t, err)
	u, err := dyn.Resource(tenantapi.TenantGVR).Get(t.Context(), "acme", metav1.GetOptions{})
	require.NoError(t, err)
	rec, err := tenantapi.TenantFromUnstructured(u)
	require.NoError(t, err)
	return rec.Status.Sleep
}

// upstreamReplicas is spec.replicas of acme-default/dozer upstream.
func upstreamReplicas(t *testing.T) int32 {
	t.Helper()
	d, err := framework.AdminClient(t).AppsV1().Deployments("acme-default").Get(t.Context(), "dozer", metav1.GetOptions{})
	require.NoError(t, err)
	return *d.Spec.Replicas
}

// TestServerSleepsIdleTenantAndWakesIt (issue 28): with --sleep-after 2s,
// two replicas that see no request of acme's put it to sleep (its
// Deployment at 0 upstream); its next request, a read through either
// replica, wakes it first and is answered with the count from before. Put
// to sleep by a user, acme's reads leave it asleep, and a scale through
// the server wakes it first, then scales.
func TestServerSleepsIdleTenantAndWakesIt(t *testing.T) {
	lb, _ := twoReplicas(t)
	acme := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	t.Cleanup(func() { // t.Context() is gone by now
		for _, args := range [][]string{{"policy", "set", "acme", "--sleep-after", ""}, {"tenant", "wake", "acme"}} {
			framework.Run(context.Background(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
		}
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "deployment", "dozer", "-n", "acme-default", "--ignore-not-found")
	})
	framework.Run(t.Context(), []byte(dozer), framework.KubectlPath(), "--kubeconfig", acme, "apply", "-f", "-")
	require.Equal(t, int32(2), upstreamReplicas(t))

	zooAdmin(t, "policy", "set", "acme", "--sleep-after", "2s")
	require.Eventually(t, func() bool {
		s := sleepState(t)
		return s != nil && s.State == tenantapi.SleepStateAsleep && s.Converged && upstreamReplicas(t) == 0
	}, 2*time.Minute, 200*time.Millisecond, "the idle tenant is put to sleep")
	assert.Equal(t, tenantapi.SleptByServer, sleepState(t).By)

	// The next request wakes it first and is answered as if it never slept.
	get := func() string {
		return framework.KubectlAs(t, acme, "get", "deployment", "dozer", "-n", "default", "-o", "jsonpath={.spec.replicas}")
	}
	assert.Equal(t, "2", get())
	assert.Equal(t, int32(2), upstreamReplicas(t))

	// Put to sleep by a user: reads do not wake it, a scale does, then scales.
	zooAdmin(t, "policy", "set", "acme", "--sleep-after", "")
	zooAdmin(t, "tenant", "sleep", "acme")
	assert.Equal(t, "0", get())
	framework.KubectlAs(t, acme, "scale", "deployment", "dozer", "-n", "default", "--replicas", "3")
	assert.Equal(t, int32(3), upstreamReplicas(t))
	s := sleepState(t)
	assert.Equal(t, tenantapi.SleepStateAwake, s.State)
	assert.True(t, s.Converged)
}
