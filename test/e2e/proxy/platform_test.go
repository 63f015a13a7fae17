package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	byProxyMetadata = "belongs to the platform"
	byProxyPriority = "a tenant's pods may only use classes of value 0 or less"
	byPodSecurity   = `violates PodSecurity "baseline:latest"`
)

// betaAndPlatform is what acme's probes must leave alone: every namespace
// that is not acme's (labels, annotations, resourceVersion), beta's pods and
// the cluster's own classes.
func betaAndPlatform(t *testing.T) string {
	out := ""
	for _, selector := range []string{"zoo.kubectl-zoo.io/tenant=beta", "!zoo.kubectl-zoo.io/tenant"} {
		out += admin(t, "get", "ns", "-l", selector, "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.metadata.resourceVersion} {.metadata.labels} {.metadata.annotations}{"\n"}{end}`)
	}
	return out +
		admin(t, "get", "pods", "-n", "beta-default", "-o", "name") +
		admin(t, "get", "priorityclasses,storageclasses", "-l", "!zoo.kubectl-zoo.io/tenant", "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.metadata.resourceVersion}{"\n"}{end}`)
}

func nsLabels(t *testing.T, s *served, ns string) map[string]string {
	t.Helper()
	var labels map[string]string
	require.NoError(t, json.Unmarshal([]byte(s.k(t, "get", "ns", ns, "-o", "jsonpath={.metadata.labels}")), &labels))
	return labels
}

// TestPlatformMetadataThroughProxy (issue 11, class 4): through its proxy,
// acme sees the platform's Pod Security labels on its namespaces, cannot add,
// change or remove them with any kind of write (403 from the proxy naming the
// key), still applies and replaces its namespaces (the proxy keeps the
// platform's keys), gets them on every namespace it creates, and a
// privileged hostPath pod is refused by Pod Security.
func TestPlatformMetadataThroughProxy(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "plat")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "plat", "--wait=false") })
	labels := nsLabels(t, acme, "plat")
	assert.Equal(t, "baseline", labels["pod-security.kubernetes.io/enforce"], "a new namespace gets the platform's level")
	assert.Equal(t, "baseline", labels["pod-security.kubernetes.io/warn"])
	assert.Equal(t, "baseline", nsLabels(t, acme, "default")["pod-security.kubernetes.io/enforce"], "tenant create labels the standard namespaces")

	// Positive controls: the tenant's own labels, client-side and
	// server-side apply and replace of a namespace, all keep the
	// platform's labels.
	acme.k(t, "label", "ns", "plat", "team=a")
	acme.apply(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: plat\n  labels: {team: b}\n")
	acme.apply(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: plat\n  labels: {owner: ops}\n", "--server-side")
	obj := acme.k(t, "get", "ns", "plat", "-o", "json")
	var ns map[string]any
	require.NoError(t, json.Unmarshal([]byte(obj), &ns))
	meta := ns["metadata"].(map[string]any)
	meta["labels"] = map[string]any{"team": "c"} // an edit that drops every other label
	edited, err := json.Marshal(ns)
	require.NoError(t, err)
	res := acme.run(t, string(edited), "replace", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	labels = nsLabels(t, acme, "plat")
	assert.Equal(t, "c", labels["team"])
	assert.Equal(t, "baseline", labels["pod-security.kubernetes.io/enforce"], "a replace that omits the platform's labels keeps them")
	assert.Equal(t, "baseline", labels["pod-security.kubernetes.io/audit"])

	before := betaAndPlatform(t)
	acmeBefore := admin(t, "get", "ns", "acme-plat", "acme-default", "-o", "jsonpath={.items[*].metadata.labels}")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		denial      string
	}{
		{name: "label --overwrite enforce=privileged", args: []string{"label", "ns", "plat", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"}, denial: byProxyMetadata},
		{name: "label enforce-", args: []string{"label", "ns", "default", "pod-security.kubernetes.io/enforce-"}, denial: byProxyMetadata},
		{name: "json patch on enforce", args: []string{"patch", "ns", "plat", "--type=json",
			`-p=[{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"privileged"}]`}, denial: byProxyMetadata},
		{name: "json patch moving enforce away", args: []string{"patch", "ns", "plat", "--type=json",
			`-p=[{"op":"move","from":"/metadata/labels/pod-security.kubernetes.io~1enforce","path":"/metadata/labels/x"}]`}, denial: byProxyMetadata},
		{name: "merge patch nulling the labels", args: []string{"patch", "ns", "plat", "--type=merge", `-p={"metadata":{"labels":null}}`}, denial: "may not be changed"},
		{name: "strategic patch on warn", args: []string{"patch", "ns", "plat", "--type=strategic",
			`-p={"metadata":{"labels":{"pod-security.kubernetes.io/warn":"privileged"}}}`}, denial: byProxyMetadata},
		{name: "server-side apply privileged", stdin: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: plat\n  labels: {pod-security.kubernetes.io/enforce: privileged}\n",
			args: []string{"apply", "--server-side", "--force-conflicts", "-f", "-"}, denial: byProxyMetadata},
		{name: "create a privileged namespace", stdin: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: root\n  labels: {pod-security.kubernetes.io/enforce: privileged}\n",
			args: []string{"create", "-f", "-"}, denial: byProxyMetadata},
		{name: "node-selector annotation", args: []string{"annotate", "ns", "plat", "scheduler.alpha.kubernetes.io/node-selector=role=infra"}, denial: byProxyMetadata},
		{name: "allow itself system-node-critical", args: []string{"annotate", "ns", "plat", "zoo.kubectl-zoo.io/priority-classes=system-node-critical"}, denial: byProxyMetadata},
		{name: "privileged hostPath pod", stdin: `apiVersion: v1
kind: Pod
metadata: {name: root, namespace: plat}
spec:
  containers:
  - {name: c, image: busybox, securityContext: {privileged: true}, volumeMounts: [{name: host, mountPath: /host}]}
  volumes: [{name: host, hostPath: {path: /}}]
`, args: []string{"create", "-f", "-"}, denial: byPodSecurity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := acme.run(t, tc.stdin, tc.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, tc.denial)
		})
	}
	assert.Equal(t, before, betaAndPlatform(t), "nothing of beta or the platform changed")
	assert.Equal(t, acmeBefore, admin(t, "get", "ns", "acme-plat", "acme-default", "-o", "jsonpath={.items[*].metadata.labels}"))
	assert.Empty(t, admin(t, "get", "pods", "-n", "acme-plat", "-o", "name"))
}

// TestPodSecurityStricterThroughProxy (issue 16): a tenant may label its
// namespaces with its own Pod Security level or a stricter one — as the
// Kubernetes e2e framework does for every namespace it creates (restricted)
// — and the stricter level is enforced; a looser one stays refused, on
// create and on update.
func TestPodSecurityStricterThroughProxy(t *testing.T) {
	acme := serve(t, "acme")
	acme.apply(t, `apiVersion: v1
kind: Namespace
metadata:
  name: strict
  labels: {pod-security.kubernetes.io/enforce: restricted, pod-security.kubernetes.io/warn: restricted, pod-security.kubernetes.io/audit: restricted}
`)
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "strict", "loose", "--wait=false") })
	upstream := admin(t, "get", "ns", "acme-strict", "-o", "jsonpath={.metadata.labels}")
	for _, k := range []string{"enforce", "warn", "audit"} {
		assert.Contains(t, upstream, `"pod-security.kubernetes.io/`+k+`":"restricted"`)
	}
	// Enforced: a pod that baseline admits and restricted does not.
	res := acme.run(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: strict}\nspec:\n  containers: [{name: c, image: busybox}]\n", "create", "-f", "-")
	require.Error(t, res.Err, "restricted is enforced; stdout: %s", res.Stdout)
	assert.Contains(t, res.Stderr, `violates PodSecurity "restricted:latest"`)

	// An existing namespace at the tenant's level made stricter, and back.
	acme.k(t, "create", "namespace", "loose")
	acme.k(t, "label", "ns", "loose", "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
	assert.Equal(t, "restricted", nsLabels(t, acme, "loose")["pod-security.kubernetes.io/enforce"])
	acme.k(t, "patch", "ns", "loose", "--type=json",
		`-p=[{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1warn","value":"restricted"}]`)
	acme.k(t, "label", "ns", "loose", "pod-security.kubernetes.io/enforce=baseline", "--overwrite")
	labels := nsLabels(t, acme, "loose")
	assert.Equal(t, "baseline", labels["pod-security.kubernetes.io/enforce"])
	assert.Equal(t, "restricted", labels["pod-security.kubernetes.io/warn"])

	before := betaAndPlatform(t)
	for _, tc := range []struct {
		name, stdin string
		args        []string
	}{
		{name: "create restricted but audit privileged", stdin: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mixed\n  labels: {pod-security.kubernetes.io/enforce: restricted, pod-security.kubernetes.io/audit: privileged}\n",
			args: []string{"create", "-f", "-"}},
		{name: "label a stricter namespace privileged", args: []string{"label", "ns", "strict", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"}},
		{name: "a level that is none", args: []string{"label", "ns", "strict", "pod-security.kubernetes.io/enforce=Restricted", "--overwrite"}},
		{name: "remove a stricter label", args: []string{"label", "ns", "strict", "pod-security.kubernetes.io/warn-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := acme.run(t, tc.stdin, tc.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, byProxyMetadata)
		})
	}
	assert.Equal(t, before, betaAndPlatform(t), "nothing of beta or the platform changed")
	assert.Equal(t, "restricted", nsLabels(t, acme, "strict")["pod-security.kubernetes.io/warn"])
}

// TestPriorityThroughProxy (issue 11, class 5): acme's workloads naming a
// cluster PriorityClass of positive value are refused at write time by the
// proxy, whatever makes the pods; a normal Deployment runs, and a
// PriorityClass of acme's own is capped and usable.
func TestPriorityThroughProxy(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "prio")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "prio", "--wait=false") })
	before := betaAndPlatform(t)

	template := func(kind, class string) string {
		spec := "{priorityClassName: " + class + ", restartPolicy: Never, containers: [{name: c, image: busybox}]}"
		switch kind {
		case "Pod":
			return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: prio}\nspec: " + spec + "\n"
		case "Job":
			return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: prio}\nspec: {template: {spec: " + spec + "}}\n"
		case "CronJob":
			return "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: prio}\nspec: {schedule: '* * * * *', jobTemplate: {spec: {template: {spec: " + spec + "}}}}\n"
		}
		spec = strings.Replace(spec, "restartPolicy: Never, ", "", 1)
		return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: w, namespace: prio}\nspec: {selector: {matchLabels: {app: w}}, template: {metadata: {labels: {app: w}}, spec: " + spec + "}}\n"
	}
	for _, kind := range []string{"Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"} {
		t.Run(kind, func(t *testing.T) {
			res := acme.run(t, template(kind, "system-node-critical"), "create", "-f", "-")
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, byProxyPriority)
			assert.Contains(t, res.Stderr, "system-node-critical")
		})
	}
	t.Run("patch a Deployment's template", func(t *testing.T) {
		acme.k(t, "-n", "prio", "create", "deployment", "plain", "--image=busybox")
		res := acme.run(t, "", "-n", "prio", "patch", "deployment", "plain", "--type=json",
			`-p=[{"op":"add","path":"/spec/template/spec/priorityClassName","value":"system-cluster-critical"}]`)
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, byProxyPriority)
	})

	// Positive controls: the plain Deployment's pods are created; acme's
	// own class is capped at 0 and never preempts, and its pods run.
	require.Eventually(t, func() bool {
		return admin(t, "get", "pods", "-n", "acme-prio", "-l", "app=plain", "-o", "name") != ""
	}, 60*time.Second, 250*time.Millisecond)
	acme.apply(t, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: batch}\nvalue: 1000000\nglobalDefault: true\n")
	assert.Equal(t, "0 Never ", acme.k(t, "get", "priorityclass", "batch", "-o", "jsonpath={.value} {.preemptionPolicy} {.globalDefault}"),
		"capped: value 0, never preempting, not the global default (false is omitted)")
	res := acme.run(t, template("Deployment", "batch"), "create", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	require.Eventually(t, func() bool {
		return admin(t, "get", "pods", "-n", "acme-prio", "-l", "app=w", "-o", "jsonpath={.items[*].spec.priority}") == "0"
	}, 60*time.Second, 250*time.Millisecond, "a Deployment using acme's own class runs at priority 0")
	acme.k(t, "delete", "priorityclass", "batch")

	assert.Equal(t, before, betaAndPlatform(t), "nothing of beta or the platform changed")
}
