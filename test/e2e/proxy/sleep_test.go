package proxy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// zooAdmin runs bin/kubectl-zoo as the platform's admin (also in a
// cleanup, when the test's context is done) and fails the test on error.
func zooAdmin(t *testing.T, args ...string) string {
	t.Helper()
	res := framework.Run(context.Background(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
	require.NoError(t, res.Err, "kubectl zoo %v: %s", args, res.Stderr)
	return res.Stdout
}

func napper(name string, replicas string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `}
spec:
  replicas: ` + replicas + `
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec: {containers: [{name: c, image: busybox}]}
`
}

// TestSleepingTenantThroughServe (issue 28): while acme sleeps, its view
// through `kubectl zoo serve` answers reads without waking it, and offers
// no way to forge or erase its sleep state; a new workload, or a scale,
// wakes it first and is then served as usual.
func TestSleepingTenantThroughServe(t *testing.T) {
	acme := serve(t, "acme")
	t.Cleanup(func() {
		zooAdmin(t, "tenant", "wake", "acme")
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "deployment", "napper", "fresh", "-n", "acme-default", "--ignore-not-found")
	})
	state := func() string { return admin(t, "get", "tenant", "acme", "-o", "jsonpath={.status.sleep.state}") }
	upstream := func(name string) string {
		return admin(t, "get", "deployment", name, "-n", "acme-default", "-o", "jsonpath={.spec.replicas}")
	}
	acme.apply(t, napper("napper", "2"), "-n", "default")
	zooAdmin(t, "tenant", "sleep", "acme")
	require.Equal(t, "Asleep", state())

	assert.Equal(t, "0", acme.k(t, "get", "deployment", "napper", "-n", "default", "-o", "jsonpath={.spec.replicas}"))
	assert.Contains(t, acme.k(t, "get", "deployments", "-A", "-o", "name"), "deployment.apps/napper")
	require.Equal(t, "Asleep", state(), "reads do not wake it")

	// The record is not in acme's view: neither readable nor writable.
	raw := admin(t, "get", "tenant", "acme", "-o", "json")
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &rec))
	delete(rec["status"].(map[string]any), "sleep")
	forged, err := json.Marshal(rec)
	require.NoError(t, err)
	for _, args := range [][]string{
		{"get", "--raw", "/apis/zoo.kubectl-zoo.io/v1alpha1/tenants/acme"},
		{"replace", "--raw", "/apis/zoo.kubectl-zoo.io/v1alpha1/tenants/acme/status", "-f", "-"},
	} {
		res := acme.run(t, string(forged), args...)
		require.Error(t, res.Err, "%v: %s", args, res.Stdout)
	}
	require.Equal(t, "Asleep", state())

	// A new workload wakes acme first; then it is made.
	acme.apply(t, napper("fresh", "1"), "-n", "default")
	assert.Equal(t, "Awake", state())
	assert.Equal(t, "2", upstream("napper"))
	assert.Equal(t, "1", upstream("fresh"))

	// A scale wakes it first, then scales.
	zooAdmin(t, "tenant", "sleep", "acme")
	require.Equal(t, "0", upstream("napper"))
	acme.k(t, "scale", "deployment", "napper", "-n", "default", "--replicas", "3")
	assert.Equal(t, "3", upstream("napper"))
	assert.Equal(t, "1", upstream("fresh"))
	assert.Equal(t, "Awake", state())
}

// TestSleepDespiteTenantAdmission (issue 28): acme's own admission policy
// refusing every scale of its Deployments and every update of its CronJobs
// holds for acme, and does not keep the platform from putting acme to sleep
// and waking it: sleep and wake act as translate.SleepUser, whom tenants'
// admission skips.
func TestSleepDespiteTenantAdmission(t *testing.T) {
	acme := serve(t, "acme")
	t.Cleanup(func() {
		zooAdmin(t, "tenant", "wake", "acme")
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "deployment", "napper", "-n", "acme-default", "--ignore-not-found")
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", acme.Kubeconfig,
			"delete", "validatingadmissionpolicy,validatingadmissionpolicybinding", "stay-up", "--ignore-not-found")
	})
	acme.apply(t, napper("napper", "2"), "-n", "default")
	acme.apply(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: stay-up}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], resources: [deployments, deployments/scale], operations: [UPDATE]}
    - {apiGroups: [batch], apiVersions: [v1], resources: [cronjobs], operations: [UPDATE]}
  validations:
  - {expression: "false", message: "acme stays up"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: stay-up}
spec:
  policyName: stay-up
  validationActions: [Deny]
`)
	require.Eventually(t, func() bool {
		res := acme.run(t, "", "scale", "deployment", "napper", "-n", "default", "--replicas", "1")
		return res.Err != nil && strings.Contains(res.Stderr, "acme stays up")
	}, time.Minute, 200*time.Millisecond, "acme's policy is in force for acme")

	replicas := func() string {
		return admin(t, "get", "deployment", "napper", "-n", "acme-default", "-o", "jsonpath={.spec.replicas}")
	}
	before := replicas() // 2, or 1 when a probe was let through before the policy was in force
	zooAdmin(t, "tenant", "sleep", "acme")
	assert.Equal(t, "0", replicas())
	zooAdmin(t, "tenant", "wake", "acme")
	assert.Equal(t, before, replicas())
}
