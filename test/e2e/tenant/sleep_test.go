package tenant_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// sleepyWorkloads is what tenant %[1]s runs, in two of its namespaces: Deployments
// (api with an HPA, idle at 0), a StatefulSet, two CronJobs (one
// suspended) and a bare pod.
const sleepyWorkloads = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %[1]s-default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: idle, namespace: %[1]s-default}
spec:
  replicas: 0
  selector: {matchLabels: {app: idle}}
  template:
    metadata: {labels: {app: idle}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: %[1]s-kube-public}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: 10m}}}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: %[1]s-kube-public}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 5
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: %[1]s-kube-public}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: %[1]s-default}
spec:
  schedule: "0 3 * * *"
  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: weekly, namespace: %[1]s-kube-public}
spec:
  schedule: "0 4 * * *"
  suspend: true
  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
---
apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: %[1]s-default}
spec: {containers: [{name: c, image: busybox}]}
`

// tenantAdmin is the --as flags of tenant's admin directly upstream.
func tenantAdmin(tenant string) []string {
	return []string{"--as", "zoo:" + tenant + ":admin", "--as-group", "zoo:tenant:" + tenant, "--as-group", "zoo:admins"}
}

// sleepyTenant creates tenant with sleepyWorkloads (applied by the cluster
// admin: the tenant's RBAC in a namespace it just made is not what is
// tested), and waits until its 7 pods run.
func sleepyTenant(t *testing.T, tenant string) {
	t.Helper()
	install(t)
	createTenant(t, tenant)
	kubectlOK(t, fmt.Sprintf(sleepyWorkloads, tenant), "apply", "-f", "-")
	require.Eventually(t, func() bool { return len(runningPods(t, tenant)) == 7 }, 2*time.Minute, time.Second,
		"pods of %s: %v", tenant, runningPods(t, tenant))
}

// runningPods lists the pods, not being deleted, of tenant's namespaces.
func runningPods(t *testing.T, tenant string) []string {
	t.Helper()
	var out []string
	for _, ns := range []string{tenant + "-default", tenant + "-kube-public"} {
		list, err := framework.AdminClient(t).CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		for _, p := range list.Items {
			if p.DeletionTimestamp == nil {
				out = append(out, ns+"/"+p.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// workloadState is "resource/namespace/name=replicas|suspend" of every
// workload sleep touches in tenant's namespaces, sorted.
func workloadState(t *testing.T, tenant string) []string {
	t.Helper()
	var out []string
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "apps", Version: "v1", Resource: "deployments"}, {Group: "apps", Version: "v1", Resource: "statefulsets"},
		{Group: "batch", Version: "v1", Resource: "cronjobs"},
	} {
		for _, ns := range []string{tenant + "-default", tenant + "-kube-public"} {
			list, err := dynamicClient(t).Resource(gvr).Namespace(ns).List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err)
			for _, u := range list.Items {
				v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas")
				if gvr.Resource == "cronjobs" {
					v, _, _ = unstructured.NestedFieldNoCopy(u.Object, "spec", "suspend")
				}
				out = append(out, fmt.Sprintf("%s/%s/%s=%v", gvr.Resource, ns, u.GetName(), v))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestSleepAndWake (issue 28): sleep scales every workload of a tenant to
// 0 and suspends its CronJobs, leaving only the bare pod it reports (and
// deletes with --include-pods); the HPA does not fight it; `tenant list`
// says so; wake restores every count and suspend flag; both are
// idempotent.
func TestSleepAndWake(t *testing.T) {
	sleepyTenant(t, "sleepy")
	before := workloadState(t, "sleepy")
	require.Contains(t, before, "deployments/sleepy-kube-public/api=3")

	out := mustZoo(t, "tenant", "sleep", "sleepy")
	assert.Contains(t, out, "tenant/sleepy asleep: 4 workload(s) scaled to 0 or suspended, 4 recorded for wake")
	assert.Contains(t, out, "pod sleepy-default/bare left running (delete them with --include-pods)")
	assert.Equal(t, []string{
		"cronjobs/sleepy-default/nightly=true", "cronjobs/sleepy-kube-public/weekly=true",
		"deployments/sleepy-default/idle=0", "deployments/sleepy-default/web=0",
		"deployments/sleepy-kube-public/api=0", "statefulsets/sleepy-kube-public/db=0",
	}, workloadState(t, "sleepy"))
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual([]string{"sleepy-default/bare"}, runningPods(t, "sleepy")) },
		2*time.Minute, time.Second)
	assert.Regexp(t, `(?m)^sleepy\s+4\s+Ready\s+asleep `, mustZoo(t, "tenant", "list"))

	// The HPA controller sees the 0 and stands aside, its settings intact.
	require.Eventually(t, func() bool {
		reason := kubectlOK(t, "", "get", "hpa", "api", "-n", "sleepy-kube-public", "-o",
			`jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}`)
		return reason == "ScalingDisabled"
	}, 2*time.Minute, time.Second)
	assert.Equal(t, "2 5", kubectlOK(t, "", "get", "hpa", "api", "-n", "sleepy-kube-public", "-o", "jsonpath={.spec.minReplicas} {.spec.maxReplicas}"))
	assert.Equal(t, "0", kubectlOK(t, "", "get", "deployment", "api", "-n", "sleepy-kube-public", "-o", "jsonpath={.spec.replicas}"))

	out = mustZoo(t, "tenant", "sleep", "sleepy", "--include-pods")
	assert.Contains(t, out, "0 workload(s) scaled to 0 or suspended, 4 recorded for wake")
	assert.Contains(t, out, "pod sleepy-default/bare deleted")
	require.Eventually(t, func() bool { return len(runningPods(t, "sleepy")) == 0 }, 2*time.Minute, time.Second)

	out = mustZoo(t, "tenant", "wake", "sleepy")
	assert.Contains(t, out, "tenant/sleepy awake: 4 workload(s) restored")
	assert.Equal(t, before, workloadState(t, "sleepy"))
	assert.Regexp(t, `(?m)^sleepy\s+4\s+Ready\s+awake `, mustZoo(t, "tenant", "list"))
	assert.Contains(t, mustZoo(t, "tenant", "wake", "sleepy"), "0 workload(s) restored")
	require.Eventually(t, func() bool { return len(runningPods(t, "sleepy")) == 6 }, 2*time.Minute, time.Second)
	assert.Equal(t, before, workloadState(t, "sleepy"))
}

// TestSleepBadInput: one clear line and a non-zero exit.
func TestSleepBadInput(t *testing.T) {
	install(t)
	framework.RequireOneLineError(t, zoo(t, "tenant", "sleep", "nosuch"), `tenant "nosuch" does not exist`)
	framework.RequireOneLineError(t, zoo(t, "tenant", "wake", "Bad-Name"), "Bad-Name")
	framework.RequireOneLineError(t, zoo(t, "tenant", "sleep"), "takes exactly one tenant NAME")
}
