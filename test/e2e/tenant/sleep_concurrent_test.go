package tenant_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestSleepWakeConcurrent (issue 28): sleeps and wakes of one tenant at
// once, as two server replicas, a user and the server would, all succeed
// and converge; after them a wake restores every count, a sleep leaves
// every workload at 0, and a wake restores every count again.
func TestSleepWakeConcurrent(t *testing.T) {
	install(t)
	createTenant(t, "racy")
	for i := range 6 {
		d := benchDeployment(i)
		d.Spec.Replicas = ptr.To(int32(i + 1))
		_, err := framework.AdminClient(t).AppsV1().Deployments("racy-default").Create(t.Context(), d, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	before := workloadState(t, "racy")
	writers := make([]*tenantctl.Client, 4) // a client each, as separate processes
	for i := range writers {
		c, err := tenantctl.NewClient(framework.Cluster().Config)
		require.NoError(t, err)
		writers[i] = c
	}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() {
			c := writers[i%len(writers)]
			if i%2 == 0 {
				_, errs[i] = c.SleepTenant(t.Context(), "racy", tenantctl.SleepOptions{NoPods: true})
			} else {
				_, errs[i] = c.WakeTenant(t.Context(), "racy")
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "writer %d", i)
	}

	mustZoo(t, "tenant", "wake", "racy")
	assert.Equal(t, before, workloadState(t, "racy"))
	assert.Contains(t, mustZoo(t, "tenant", "sleep", "racy"), "6 recorded for wake")
	for _, w := range workloadState(t, "racy") {
		assert.Regexp(t, `=0$`, w)
	}
	mustZoo(t, "tenant", "wake", "racy")
	assert.Equal(t, before, workloadState(t, "racy"))
}
