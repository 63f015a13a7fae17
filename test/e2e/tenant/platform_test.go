package tenant_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const (
	byMetadata    = "ValidatingAdmissionPolicy 'zoo-tenant-metadata'"
	byPriority    = "ValidatingAdmissionPolicy 'zoo-tenant-priority'"
	byPodSecurity = `violates PodSecurity "baseline:latest"`
	// byInvalidLevel is the API server's validation of Pod Security labels.
	byInvalidLevel = "must be one of privileged, baseline, restricted"
)

// platformSnapshot is what the probes aim at besides acme's own objects:
// every namespace's labels and annotations (beta's and the platform's),
// beta's pods and the cluster's PriorityClasses.
func platformSnapshot(t *testing.T) string {
	t.Helper()
	out := ""
	for _, selector := range []string{translate.TenantLabel + "=beta", "!" + translate.TenantLabel} {
		out += framework.Kubectl(t, "get", "namespaces", "-l", selector, "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.metadata.resourceVersion} {.metadata.labels} {.metadata.annotations}{"\n"}{end}`)
	}
	return out +
		framework.Kubectl(t, "get", "pods", "-n", "beta-default", "-o", "name") +
		framework.Kubectl(t, "get", "priorityclasses,storageclasses", "-l", "!"+translate.TenantLabel, "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.metadata.resourceVersion}{"\n"}{end}`)
}

const privilegedPod = `apiVersion: v1
kind: Pod
metadata: {name: root, namespace: %s}
spec:
  containers:
  - {name: c, image: busybox, securityContext: {privileged: true}, volumeMounts: [{name: host, mountPath: /host}]}
  volumes: [{name: host, hostPath: {path: /}}]
`

func deployment(name, ns, class string) string {
	pc := ""
	if class != "" {
		pc = "\n      priorityClassName: " + class
	}
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `, namespace: ` + ns + `}
spec:
  replicas: 1
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:` + pc + `
      containers: [{name: c, image: busybox}]
`
}

// TestPlatformMetadataUpstream (issue 11, class 4): acme's admin and a
// ServiceAccount with every right in acme-default, used directly upstream,
// can neither relabel a namespace privileged, nor add the annotations the
// scheduling admission plugins read, nor make their storage class the
// cluster's default — and a privileged hostPath pod is refused by Pod
// Security at the level the platform set.
func TestPlatformMetadataUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	sa := serviceAccountKubeconfig(t)

	// The platform's labels are in place and visible to the tenant.
	assert.Equal(t, "baseline", kubectlOK(t, "", append(admin, "get", "ns", "acme-default", "-o",
		`jsonpath={.metadata.labels.pod-security\.kubernetes\.io/enforce}`)...))
	// Positive controls: the tenant's own labels stay the tenant's, and a
	// namespace at the tenant's level can be made.
	kubectlOK(t, "", append(admin, "label", "ns", "acme-default", "team=a", "--overwrite")...)
	kubectlOK(t, `apiVersion: v1
kind: Namespace
metadata:
  name: acme-second
  labels: {zoo.kubectl-zoo.io/tenant: acme, pod-security.kubernetes.io/enforce: baseline}
`, append(admin, "create", "-f", "-")...)

	before := platformSnapshot(t)
	acmeBefore := framework.Kubectl(t, "get", "ns", "acme-default", "-o", "jsonpath={.metadata.labels} {.metadata.annotations}")
	for _, a := range []attack{
		{name: "label --overwrite enforce=privileged", args: append(admin, "label", "ns", "acme-default", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"), denial: byMetadata},
		{name: "remove the enforce label", args: append(admin, "label", "ns", "acme-default", "pod-security.kubernetes.io/enforce-"), denial: byMetadata},
		{name: "json patch on enforce", args: append(admin, "patch", "ns", "acme-default", "--type=json",
			`-p=[{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"privileged"}]`), denial: byMetadata},
		{name: "json patch replacing all labels", args: append(admin, "patch", "ns", "acme-default", "--type=json",
			`-p=[{"op":"replace","path":"/metadata/labels","value":{"zoo.kubectl-zoo.io/tenant":"acme"}}]`), denial: byMetadata},
		{name: "merge patch adding enforce-version", args: append(admin, "patch", "ns", "acme-default", "--type=merge",
			`-p={"metadata":{"labels":{"pod-security.kubernetes.io/enforce-version":"v1.0"}}}`), denial: byMetadata},
		{name: "server-side apply privileged", stdin: `apiVersion: v1
kind: Namespace
metadata:
  name: acme-default
  labels: {pod-security.kubernetes.io/enforce: privileged}
`, args: append(admin, "apply", "--server-side", "--force-conflicts", "-f", "-"), denial: byMetadata},
		{name: "node-selector annotation", args: append(admin, "annotate", "ns", "acme-default", "scheduler.alpha.kubernetes.io/node-selector=role=infra"), denial: byMetadata},
		{name: "allow itself system-node-critical", args: append(admin, "annotate", "ns", "acme-default", translate.PriorityClassesAnnotation+"=system-node-critical"), denial: byMetadata},
		{name: "create a privileged namespace", stdin: `apiVersion: v1
kind: Namespace
metadata:
  name: acme-root
  labels: {zoo.kubectl-zoo.io/tenant: acme, pod-security.kubernetes.io/enforce: privileged}
`, args: append(admin, "create", "-f", "-"), denial: byMetadata},
		{name: "create a namespace without the level", stdin: `apiVersion: v1
kind: Namespace
metadata:
  name: acme-bare
  labels: {zoo.kubectl-zoo.io/tenant: acme}
`, args: append(admin, "create", "-f", "-"), denial: byMetadata},
		{name: "a default storage class for every tenant", stdin: `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: acme-grab
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/none
`, args: append(admin, "create", "-f", "-"), denial: "ValidatingAdmissionPolicy 'zoo-tenant-"}, // zoo-tenant-metadata or zoo-tenant-storage: both refuse it
		{name: "privileged hostPath pod", stdin: strings.ReplaceAll(privilegedPod, "%s", "acme-default"), args: append(admin, "create", "-f", "-"), denial: byPodSecurity},
		// Both zoo-tenant (not acme's namespace) and zoo-tenant-metadata
		// refuse it; the client sees whichever the API server ran first.
		{name: "relabel beta's namespace", args: append(admin, "label", "ns", "beta-default", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"), denial: "ValidatingAdmissionPolicy 'zoo-tenant"},
	} {
		t.Run("admin/"+a.name, func(t *testing.T) {
			res := kubectl(t, a.stdin, a.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, a.denial)
		})
	}
	for _, a := range []attack{
		{name: "label its own namespace privileged", args: []string{"label", "ns", "acme-default", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"}, denial: byMetadata},
		{name: "json patch removing enforce", args: []string{"patch", "ns", "acme-default", "--type=json",
			`-p=[{"op":"remove","path":"/metadata/labels/pod-security.kubernetes.io~1enforce"}]`}, denial: byMetadata},
		{name: "privileged hostPath pod", stdin: strings.ReplaceAll(privilegedPod, "%s", "acme-default"), args: []string{"create", "-f", "-"}, denial: byPodSecurity},
	} {
		t.Run("serviceaccount/"+a.name, func(t *testing.T) {
			res := kubectlWith(t, sa, a.stdin, a.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, a.denial)
		})
	}
	assert.Equal(t, before, platformSnapshot(t), "nothing of beta or the platform changed")
	assert.Equal(t, acmeBefore, framework.Kubectl(t, "get", "ns", "acme-default", "-o", "jsonpath={.metadata.labels} {.metadata.annotations}"))
	assert.Empty(t, framework.Kubectl(t, "get", "pods", "-n", "acme-default", "-o", "name"))
}

// TestPodSecurityStricterUpstream (issue 16): zoo-tenant-metadata agrees
// with the proxy. acme's admin, directly upstream, may create a namespace at
// a level stricter than acme's (baseline) and make an existing one stricter
// and back, but never looser; a ServiceAccount may use no level at all.
func TestPodSecurityStricterUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	sa := serviceAccountKubeconfig(t)

	kubectlOK(t, `apiVersion: v1
kind: Namespace
metadata:
  name: acme-strict
  labels: {zoo.kubectl-zoo.io/tenant: acme, pod-security.kubernetes.io/enforce: restricted, pod-security.kubernetes.io/warn: restricted, pod-security.kubernetes.io/audit: restricted}
`, append(admin, "create", "-f", "-")...)
	kubectlOK(t, "", append(admin, "label", "ns", "acme-default", "pod-security.kubernetes.io/enforce=restricted", "--overwrite")...)
	kubectlOK(t, "", append(admin, "label", "ns", "acme-default", "pod-security.kubernetes.io/enforce=baseline", "--overwrite")...)

	before := platformSnapshot(t)
	acmeBefore := framework.Kubectl(t, "get", "ns", "acme-default", "acme-strict", "-o", "jsonpath={.items[*].metadata.labels}")
	for _, a := range []attack{
		{name: "admin/create restricted but audit privileged", stdin: `apiVersion: v1
kind: Namespace
metadata:
  name: acme-mixed
  labels: {zoo.kubectl-zoo.io/tenant: acme, pod-security.kubernetes.io/enforce: restricted, pod-security.kubernetes.io/audit: privileged}
`, args: append(admin, "create", "-f", "-"), denial: byMetadata},
		{name: "admin/label a stricter namespace privileged", args: append(admin, "label", "ns", "acme-strict", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"), denial: byMetadata},
		{name: "admin/warn privileged", args: append(admin, "label", "ns", "acme-default", "pod-security.kubernetes.io/warn=privileged", "--overwrite"), denial: byMetadata},
		// The API server's own validation of Pod Security labels refuses
		// a level that is none before any policy runs.
		{name: "admin/a level that is none", args: append(admin, "label", "ns", "acme-strict", "pod-security.kubernetes.io/enforce=Restricted", "--overwrite"), denial: byInvalidLevel},
		{name: "admin/remove a stricter label", args: append(admin, "label", "ns", "acme-strict", "pod-security.kubernetes.io/warn-"), denial: byMetadata},
		{name: "admin/create a namespace enforcing a level that is none", stdin: `apiVersion: v1
kind: Namespace
metadata:
  name: acme-odd
  labels: {zoo.kubectl-zoo.io/tenant: acme, pod-security.kubernetes.io/enforce: none}
`, args: append(admin, "create", "-f", "-"), denial: byInvalidLevel},
	} {
		t.Run(a.name, func(t *testing.T) {
			res := kubectl(t, a.stdin, a.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, a.denial)
		})
	}
	t.Run("serviceaccount/label its namespace restricted", func(t *testing.T) {
		res := kubectlWith(t, sa, "", "label", "ns", "acme-default", "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
		require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
		assert.Contains(t, res.Stderr, byMetadata)
	})
	assert.Equal(t, before, platformSnapshot(t), "nothing of beta or the platform changed")
	assert.Equal(t, acmeBefore, framework.Kubectl(t, "get", "ns", "acme-default", "acme-strict", "-o", "jsonpath={.items[*].metadata.labels}"))
}

// TestPriorityUpstream (issue 11, class 5): pods in acme's namespaces never
// get a positive priority — neither created by acme's admin or
// ServiceAccount nor by the controllers of their Deployments and Jobs —
// while a normal Deployment runs and acme's own PriorityClass of value 0 is
// usable.
func TestPriorityUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	sa := serviceAccountKubeconfig(t)
	before := platformSnapshot(t)

	// Positive controls.
	kubectlOK(t, deployment("plain", "acme-default", ""), append(admin, "create", "-f", "-")...)
	kubectlOK(t, `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: acme-low
  labels: {zoo.kubectl-zoo.io/tenant: acme}
value: 0
preemptionPolicy: Never
`, append(admin, "create", "-f", "-")...)
	kubectlOK(t, deployment("low", "acme-default", "acme-low"), append(admin, "create", "-f", "-")...)
	for _, name := range []string{"plain", "low"} {
		require.Eventually(t, func() bool {
			return framework.Kubectl(t, "get", "pods", "-n", "acme-default", "-l", "app="+name, "-o", "name") != ""
		}, 60*time.Second, 250*time.Millisecond, "the pods of deployment %s must be created", name)
	}

	for _, a := range []attack{
		{name: "pod with system-node-critical", stdin: `apiVersion: v1
kind: Pod
metadata: {name: vip, namespace: acme-default}
spec: {priorityClassName: system-node-critical, containers: [{name: c, image: busybox}]}
`, args: append(admin, "create", "-f", "-"), denial: byPriority},
		{name: "a PriorityClass of positive value", stdin: `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: acme-high
  labels: {zoo.kubectl-zoo.io/tenant: acme}
value: 1000000
preemptionPolicy: Never
`, args: append(admin, "create", "-f", "-"), denial: byPriority},
		{name: "the global default PriorityClass", stdin: `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: acme-default-class
  labels: {zoo.kubectl-zoo.io/tenant: acme}
value: -5
globalDefault: true
preemptionPolicy: Never
`, args: append(admin, "create", "-f", "-"), denial: "ValidatingAdmissionPolicy 'zoo-tenant-"}, // zoo-tenant-priority or zoo-tenant-storage: both refuse it
		{name: "a preempting PriorityClass", stdin: `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: acme-pushy
  labels: {zoo.kubectl-zoo.io/tenant: acme}
value: 0
`, args: append(admin, "create", "-f", "-"), denial: byPriority},
	} {
		t.Run("admin/"+a.name, func(t *testing.T) {
			res := kubectl(t, a.stdin, a.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, a.denial)
		})
	}
	res := kubectlWith(t, sa, `apiVersion: v1
kind: Pod
metadata: {name: vip-sa, namespace: acme-default}
spec: {priorityClassName: system-cluster-critical, containers: [{name: c, image: busybox}]}
`, "create", "-f", "-")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, byPriority, "a ServiceAccount's pod")

	// Controllers create the pods: the Deployment, StatefulSet and Job are
	// admitted, their pods never are, and the controllers say why.
	kubectlOK(t, deployment("vip", "acme-default", "system-node-critical"), append(admin, "create", "-f", "-")...)
	res = kubectlWith(t, sa, `apiVersion: batch/v1
kind: Job
metadata: {name: vip-job, namespace: acme-default}
spec:
  backoffLimit: 0
  template:
    spec: {priorityClassName: system-cluster-critical, restartPolicy: Never, containers: [{name: c, image: busybox}]}
`, "create", "-f", "-")
	require.NoError(t, res.Err, "the ServiceAccount may create the Job: %s", res.Stderr)
	require.Eventually(t, func() bool {
		msg := framework.Kubectl(t, "get", "rs", "-n", "acme-default", "-l", "app=vip", "-o",
			`jsonpath={.items[*].status.conditions[?(@.type=="ReplicaFailure")].message}`)
		return strings.Contains(msg, byPriority)
	}, 60*time.Second, 250*time.Millisecond, "the ReplicaSet must report the admission denial")
	require.Eventually(t, func() bool {
		events := framework.Kubectl(t, "get", "events", "-n", "acme-default", "--field-selector", "involvedObject.name=vip-job,reason=FailedCreate",
			"-o", "jsonpath={.items[*].message}")
		return strings.Contains(events, byPriority)
	}, 60*time.Second, 250*time.Millisecond, "the Job controller must report the admission denial")
	assert.Empty(t, framework.Kubectl(t, "get", "pods", "-n", "acme-default", "-l", "app=vip", "-o", "name"))
	assert.Empty(t, framework.Kubectl(t, "get", "pods", "-n", "acme-default", "-l", "job-name=vip-job", "-o", "name"))
	assert.Equal(t, before, platformSnapshot(t), "nothing of beta or the platform changed")
	assert.Empty(t, framework.Kubectl(t, "get", "priorityclass", "-l", translate.TenantLabel+"=acme", "-o", "jsonpath={.items[?(@.value>0)].metadata.name}"))
}

// kubectlOK runs kubectl as the admin (with leading --as args, or another
// --kubeconfig) and fails the test on error.
func kubectlOK(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	res := kubectl(t, stdin, args...)
	require.NoError(t, res.Err, "kubectl %v: %s", args, res.Stderr)
	return res.Stdout
}

// serviceAccountKubeconfig makes a ServiceAccount in acme-default with every
// right there (zoo-tenant-admin), as acme's admin would, and returns a
// kubeconfig with its token.
func serviceAccountKubeconfig(t *testing.T) string {
	t.Helper()
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	kubectlOK(t, "", append(admin, "create", "serviceaccount", "builder", "-n", "acme-default")...)
	kubectlOK(t, "", append(admin, "create", "rolebinding", "builder", "-n", "acme-default",
		"--clusterrole="+tenantapi.TenantAdminClusterRole, "--serviceaccount=acme-default:builder")...)
	token := strings.TrimSpace(framework.Kubectl(t, "create", "token", "builder", "-n", "acme-default"))
	return tokenKubeconfig(t, token)
}
