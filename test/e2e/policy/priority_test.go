package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// classPod is a pod of PriorityClass class.
func classPod(name, ns, class string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {priorityClassName: " + class +
		", containers: [{name: c, image: busybox}]}\n"
}

// classDeployment is a Deployment whose pods have PriorityClass class.
func classDeployment(name, ns, class string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n  replicas: 1\n" +
		"  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n" +
		"    spec: {priorityClassName: " + class + ", containers: [{name: c, image: busybox}]}\n"
}

// TestPriorityFromPolicy: a cluster PriorityClass of positive value is
// usable by acme's pods only once acme's policy lists it — through serve,
// as acme's identity directly upstream, and for the pods a Deployment's
// ReplicaSet creates (refused before: the ReplicaSet reports ReplicaFailure
// with the admission's denial) — in a namespace acme created after the
// change too; beta's pods still may not use it; `--priority-classes ”`
// takes it away again.
func TestPriorityFromPolicy(t *testing.T) {
	acme := serve(t, "acme")
	resetPolicy(t, "acme")
	mustKubectl(t, "", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 100000\n", "apply", "-f", "-")
	mustKubectl(t, acme, "", "create", "namespace", "prio")
	as := tenantAs("acme")

	// Refused before the policy lists it: the proxy at write time, the
	// upstream's zoo-tenant-priority for acme's identity and for the
	// ReplicaSet controller.
	res := kubectl(t, acme, classPod("p0", "prio", "gold"), "create", "-f", "-")
	require.Error(t, res.Err, "through serve: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byProxyPriority+" gold")
	res = kubectl(t, "", classPod("p0", "acme-prio", "gold"), append(as, "create", "-f", "-")...)
	require.Error(t, res.Err, "upstream as acme: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byPriority)
	mustKubectl(t, "", classDeployment("before", "acme-prio", "gold"), append(as, "create", "-f", "-")...)
	require.Eventually(t, func() bool {
		msg := mustKubectl(t, "", "", "get", "rs", "-n", "acme-prio", "-l", "app=before", "-o",
			`jsonpath={.items[*].status.conditions[?(@.type=="ReplicaFailure")].message}`)
		return strings.Contains(msg, byPriority)
	}, 60*time.Second, 250*time.Millisecond, "the ReplicaSet must report the admission's denial")
	assert.Empty(t, mustKubectl(t, "", "", "get", "pods", "-n", "acme-prio", "-l", "app=before", "-o", "name"))

	mustZoo(t, "policy", "set", "acme", "--priority-classes", "gold")
	assert.Contains(t, mustZoo(t, "policy", "show", "acme"), "priority-classes    gold")
	mustKubectl(t, acme, classPod("p1", "prio", "gold"), "create", "-f", "-")
	mustKubectl(t, "", classPod("p2", "acme-prio", "gold"), append(as, "create", "-f", "-")...)
	mustKubectl(t, acme, "", "create", "namespace", "later")
	mustKubectl(t, acme, classPod("p3", "later", "gold"), "create", "-f", "-")
	mustKubectl(t, "", classDeployment("after", "acme-prio", "gold"), append(as, "create", "-f", "-")...)
	require.Eventually(t, func() bool {
		return mustKubectl(t, "", "", "get", "pods", "-n", "acme-prio", "-l", "app=after", "-o", "jsonpath={.items[*].spec.priority}") == "100000"
	}, 60*time.Second, 250*time.Millisecond, "the Deployment's pod is created at gold's priority")

	// beta's policy does not list it.
	res = kubectl(t, "", classPod("p0", "beta-default", "gold"), append(tenantAs("beta"), "create", "-f", "-")...)
	require.Error(t, res.Err, "upstream as beta: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byPriority)

	// Taken away again.
	mustZoo(t, "policy", "set", "acme", "--priority-classes", "")
	require.Eventually(t, func() bool {
		return kubectl(t, "", classPod("p4", "acme-prio", "gold"), append(as, "create", "-f", "-", "--dry-run=server")...).Err != nil
	}, 30*time.Second, 250*time.Millisecond)
	res = kubectl(t, acme, classPod("p5", "prio", "gold"), "create", "-f", "-")
	require.Error(t, res.Err, "through serve after the class was taken away: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byProxyPriority+" gold")
	res = kubectl(t, "", classPod("p5", "acme-prio", "gold"), append(as, "create", "-f", "-")...)
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, byPriority)

	mustKubectl(t, acme, "", "delete", "namespace", "prio", "later", "--wait=false")
	framework.Kubectl(t, "delete", "priorityclass", "gold")
}
