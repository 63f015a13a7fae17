package tenant_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// replicasOf is spec.replicas of a Deployment upstream.
func replicasOf(t *testing.T, ns, name string) string {
	t.Helper()
	return kubectlOK(t, "", "get", "deployment", name, "-n", ns, "-o", "jsonpath={.spec.replicas}")
}

// TestSleepStateAttacksUpstream (issue 28): acme's admin and a
// ServiceAccount with every right in acme-default, directly upstream, can
// neither forge nor erase the sleep state in acme's record, nor share a
// last activity that would keep acme awake, nor drop its sleepAfter, nor
// sleep or wake beta by its record or its workloads. What acme may do is
// run its own workloads while asleep (its quota bounds them, as when
// awake): the platform's next sleep takes them down again, and wake
// restores the count recorded before the first sleep, not acme's.
func TestSleepStateAttacksUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	kubectlOK(t, deployment("napper", "acme-default", ""), "apply", "-f", "-")
	kubectlOK(t, "", "scale", "deployment", "napper", "-n", "acme-default", "--replicas", "2")
	kubectlOK(t, deployment("target", "beta-default", ""), "apply", "-f", "-")
	sa := serviceAccountKubeconfig(t)
	mustZoo(t, "policy", "set", "acme", "--sleep-after", "1h")
	mustZoo(t, "tenant", "sleep", "acme")
	records := func() string {
		return kubectlOK(t, "", "get", "tenant", "acme", "beta", "-o", "jsonpath={range .items[*]}{.spec}{.status}{\"\\n\"}{end}")
	}
	before := records()

	attacks := []attack{
		{name: "erase the sleep state", args: []string{"patch", "tenant", "acme", "--subresource=status", "--type=merge", "-p", `{"status":{"sleep":null}}`}},
		{name: "forge an awake state", args: []string{"patch", "tenant", "acme", "--subresource=status", "--type=merge", "-p", `{"status":{"sleep":{"state":"Awake","converged":true,"workloads":[]}}}`}},
		{name: "keep itself awake by its last activity", args: []string{"patch", "tenant", "acme", "--subresource=status", "--type=merge", "-p", `{"status":{"lastActivity":"2099-01-01T00:00:00Z"}}`}},
		{name: "drop its sleepAfter", args: []string{"patch", "tenant", "acme", "--type=merge", "-p", `{"spec":{"policy":{"sleepAfter":null}}}`}},
		{name: "put beta to sleep by its record", args: []string{"patch", "tenant", "beta", "--subresource=status", "--type=merge", "-p", `{"status":{"sleep":{"state":"Asleep","by":"server"}}}`}},
		{name: "put beta to sleep by its workload", args: []string{"scale", "deployment", "target", "-n", "beta-default", "--replicas", "0"}},
	}
	for who, kubeconfig := range map[string]string{"admin": "", "serviceaccount": sa} {
		for _, a := range attacks {
			t.Run(who+"/"+a.name, func(t *testing.T) {
				var res framework.Result
				if kubeconfig == "" {
					res = kubectl(t, "", append(tenantAdmin("acme"), a.args...)...)
				} else {
					res = kubectlWith(t, kubeconfig, "", a.args...)
				}
				require.Error(t, res.Err, "stdout: %s", res.Stdout)
				assert.Contains(t, res.Stderr, byRBAC)
			})
		}
	}
	assert.Equal(t, before, records())
	assert.Equal(t, "1", replicasOf(t, "beta-default", "target"))

	// acme runs its own workload while asleep: allowed, and undone.
	kubectlOK(t, "", append(tenantAdmin("acme"), "scale", "deployment", "napper", "-n", "acme-default", "--replicas", "5")...)
	assert.Contains(t, mustZoo(t, "tenant", "sleep", "acme"), "1 workload(s) scaled to 0")
	assert.Equal(t, "0", replicasOf(t, "acme-default", "napper"))
	mustZoo(t, "tenant", "wake", "acme")
	assert.Equal(t, "2", replicasOf(t, "acme-default", "napper"))
	assert.Equal(t, "1", replicasOf(t, "beta-default", "target"))
}
