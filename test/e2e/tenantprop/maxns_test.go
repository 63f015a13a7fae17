package tenantprop_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// countNamespaces counts the tenant's namespaces upstream, by its label.
func countNamespaces(t *testing.T, tenant string) int {
	t.Helper()
	list, err := framework.AdminClient(t).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{LabelSelector: "zoo.kubectl-zoo.io/tenant=" + tenant})
	require.NoError(t, err)
	return len(list.Items)
}

// createConcurrently creates the namespaces names at once through c and
// returns the names created and the errors of the others.
func createConcurrently(t *testing.T, c client, names []string) (created []string, refusals []string) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := c.run(t, "", "create", "namespace", n)
			mu.Lock()
			defer mu.Unlock()
			if res.Err == nil {
				created = append(created, n)
			} else {
				refusals = append(refusals, strings.TrimSpace(res.Stderr))
			}
		}()
	}
	wg.Wait()
	return created, refusals
}

// upstreamNamespace is a namespace manifest as a tenant identity must write
// it directly upstream (its label and Pod Security level).
func upstreamNamespace(tenant, name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %s-%s
  labels:
    zoo.kubectl-zoo.io/tenant: %s
    pod-security.kubernetes.io/enforce: baseline
    pod-security.kubernetes.io/warn: baseline
    pod-security.kubernetes.io/audit: baseline
`, tenant, name, tenant)
}

// upstreamRefusal is the message of zoo-tenant-namespace-limit: the upstream
// cannot name the limit (see tenantctl.namespaceLimitPolicy).
func upstreamRefusal(tenant string) string {
	return "tenant " + tenant + " has as many namespaces as its policy allows (maxNamespaces"
}

// TestMaxNamespacesThroughServe: a tenant with maxNamespaces 6 (4 standard
// namespaces) creating five namespaces at once through one `kubectl zoo
// serve` gets exactly two; the others, and then a direct create as the
// tenant identity upstream, are refused with a 403 naming the limit; a
// tenant ServiceAccount cannot create one either. Once a namespace is gone,
// one more fits again, through the proxy, and the upstream limit comes back.
func TestMaxNamespacesThroughServe(t *testing.T) {
	const tenant = "limserve"
	newTenant(t, tenant, `{"maxNamespaces":6}`)
	c := serve(t, tenant)
	require.Equal(t, 4, countNamespaces(t, tenant))

	created, refusals := createConcurrently(t, c, []string{"n1", "n2", "n3", "n4", "n5"})
	assert.Len(t, created, 2, "refusals: %v", refusals)
	require.Len(t, refusals, 3)
	for _, r := range refusals {
		assert.Contains(t, r, "Forbidden")
		assert.Contains(t, r, "tenant limserve may have at most 6 namespaces")
		assert.NotContains(t, r, "limserve-", "the refusal speaks the tenant's names")
	}
	assert.Equal(t, 6, countNamespaces(t, tenant))

	// Directly upstream, as the tenant's admin.
	res := direct(tenant).run(t, upstreamNamespace(tenant, "direct"), "create", "-f", "-")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, upstreamRefusal(tenant))
	// As a ServiceAccount of the tenant (RBAC grants none the right).
	res = asServiceAccount(t, tenant, tenant+"-default", "nsmaker").run(t, upstreamNamespace(tenant, "bysa"), "create", "-f", "-")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "Forbidden")
	assert.Equal(t, 6, countNamespaces(t, tenant))

	// A namespace counts until it is gone; then one more fits.
	c.k(t, "delete", "namespace", created[0], "--wait=true", "--timeout=120s")
	require.Eventually(t, func() bool {
		_, err := framework.AdminClient(t).CoreV1().Namespaces().Get(t.Context(), tenant+"-"+created[0], metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 2*time.Minute, 200*time.Millisecond)
	c.k(t, "create", "namespace", "again")
	res = direct(tenant).run(t, upstreamNamespace(tenant, "direct"), "create", "-f", "-")
	require.Error(t, res.Err, "the upstream limit is back after the proxy's create")
	assert.Contains(t, res.Stderr, upstreamRefusal(tenant))
	res = c.run(t, "", "create", "namespace", "over")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "tenant limserve may have at most 6 namespaces")
	assert.Equal(t, 6, countNamespaces(t, tenant))
}

// TestMaxNamespacesThroughServer: through two replicas of the server the
// limit holds for creates one after another (each replica counts before it
// creates), concurrent creates sent to one replica are serialized there,
// and the server's reconcile loop marks the limit upstream after a direct
// create reached it (no proxy involved).
func TestMaxNamespacesThroughServer(t *testing.T) {
	const tenant = "limsrv"
	newTenant(t, tenant, `{"maxNamespaces":6}`)
	c, replicas := servers(t, tenant)

	c.k(t, "create", "namespace", "s1")
	c.k(t, "create", "namespace", "s2")
	res := c.run(t, "", "create", "namespace", "s3")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "tenant limsrv may have at most 6 namespaces")
	require.Equal(t, 6, countNamespaces(t, tenant), "4 standard namespaces, s1 and s2")
	c.k(t, "delete", "namespace", "s2", "--wait=true", "--timeout=120s")
	require.Eventually(t, func() bool { return countNamespaces(t, tenant) == 5 }, 2*time.Minute, 200*time.Millisecond)

	one := viaServer(t, "https://"+replicas[0].Addr, tenant)
	created, refusals := createConcurrently(t, one, []string{"p1", "p2", "p3", "p4"})
	assert.Len(t, created, 1, "refusals: %v", refusals)
	for _, r := range refusals {
		assert.Contains(t, r, "tenant limsrv may have at most 6 namespaces")
	}
	require.Equal(t, 6, countNamespaces(t, tenant))

	// Below the limit, a direct create upstream is admitted; the server's
	// loop sees the tenant reach its limit and marks it, so the next direct
	// create is refused.
	c.k(t, "delete", "namespace", created[0], "--wait=true", "--timeout=120s")
	require.Eventually(t, func() bool { return countNamespaces(t, tenant) == 5 }, 2*time.Minute, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		res := direct(tenant).run(t, upstreamNamespace(tenant, "d1"), "create", "-f", "-")
		return res.Err == nil
	}, 30*time.Second, 500*time.Millisecond, "the loop lifts the limit once a namespace is gone")
	require.Eventually(t, func() bool {
		res := direct(tenant).run(t, upstreamNamespace(tenant, "d2"), "create", "--dry-run=server", "-f", "-")
		return res.Err != nil && strings.Contains(res.Stderr, upstreamRefusal(tenant))
	}, 30*time.Second, 200*time.Millisecond, "the loop marks the limit after a direct create")
	assert.Equal(t, 6, countNamespaces(t, tenant))
}
