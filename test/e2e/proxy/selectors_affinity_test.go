package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Issue 24, class 3: the scheduler evaluates a pod affinity term's
// namespaces and namespaceSelector over every namespace of the shared
// cluster. These are the attacks: a podAffinity term that schedules only if
// another tenant's pod exists (a side channel), and a podAntiAffinity term
// that keeps another tenant's pods off the node.

// affinitySpec is a pod spec (JSON) with one required term of kind
// (podAffinity or podAntiAffinity) selecting the pods labeled app=selects
// in the namespaces that extra (`,"namespaces":...` or
// `,"namespaceSelector":...`) names; none for kind "".
func affinitySpec(kind, selects, extra string) string {
	spec := `{"containers":[{"name":"c","image":"busybox"}]`
	if kind != "" {
		spec += `,"affinity":{"` + kind + `":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname",` +
			`"labelSelector":{"matchLabels":{"app":"` + selects + `"}}` + extra + `}]}}`
	}
	return spec + `}`
}

// affinityPod is a pod (JSON) in ns ("" for the current one) labeled
// app=label with affinitySpec(kind, selects, extra).
func affinityPod(name, ns, label, kind, selects, extra string) string {
	meta := `"name":"` + name + `","labels":{"app":"` + label + `"}`
	if ns != "" {
		meta += `,"namespace":"` + ns + `"`
	}
	return `{"apiVersion":"v1","kind":"Pod","metadata":{` + meta + `},"spec":` + affinitySpec(kind, selects, extra) + `}`
}

// scheduling is the pod's node and the reason of its PodScheduled condition.
func scheduling(t *testing.T, s *served, ns, name string) (node, reason string) {
	t.Helper()
	out := s.k(t, "get", "pod", name, "-n", ns, "-o", `jsonpath={.spec.nodeName}/{.status.conditions[?(@.type=="PodScheduled")].reason}`)
	node, reason, _ = strings.Cut(out, "/")
	return node, reason
}

// unschedulable waits until the scheduler has tried the pod and found no
// node for it.
func unschedulable(t *testing.T, s *served, ns, name, why string) {
	t.Helper()
	var node, reason string
	require.Eventually(t, func() bool {
		node, reason = scheduling(t, s, ns, name)
		return node != "" || reason == "Unschedulable"
	}, 60*time.Second, 500*time.Millisecond, "the scheduler decides on %s", name)
	assert.Empty(t, node, "%s: %s", name, why)
}

// scheduled waits until the pod is on a node.
func scheduled(t *testing.T, s *served, ns, name, why string) {
	t.Helper()
	assert.Eventually(t, func() bool { node, _ := scheduling(t, s, ns, name); return node != "" }, 90*time.Second, 500*time.Millisecond, "%s: %s", name, why)
}

// refusedAffinity runs kubectl against the upstream with flags (an identity)
// and stdin, and expects zoo-tenant's refusal of the pod affinity terms.
func refusedAffinity(t *testing.T, kubeconfig string, flags []string, stdin string) {
	t.Helper()
	res := framework.Run(t.Context(), []byte(stdin), framework.KubectlPath(), append(append([]string{"--kubeconfig", kubeconfig}, flags...), "create", "-f", "-")...)
	require.Error(t, res.Err, "stdout: %s", res.Stdout)
	assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant'")
	assert.Contains(t, res.Stderr, "pod affinity terms of tenant acme")
}

// TestSelectorPodAffinityConfined: a tenant's pod affinity terms select
// only pods of the tenant's namespaces, through the proxy and the server
// (translated), and are refused directly upstream unless confined.
func TestSelectorPodAffinityConfined(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	lb := servers(t) // before othersState: the first start installs the server
	beta.apply(t, affinityPod("sel-target", "", "sel-beta-secret", "", "", ""))
	defer beta.run(t, "", "delete", "pod", "sel-target", "--wait=false")
	scheduled(t, beta, "default", "sel-target", "beta's pod runs")
	acme.k(t, "create", "namespace", "sel-aff")
	defer acme.run(t, "", "delete", "namespace", "sel-aff", "--wait=false")
	before := othersState(t)
	everyNamespace := `,"namespaceSelector":{}`

	t.Run("through the proxy", func(t *testing.T) {
		// Side channel: schedules only if a pod labeled so exists anywhere.
		acme.apply(t, affinityPod("probe", "", "probe", "podAffinity", "sel-beta-secret", everyNamespace), "-n", "sel-aff")
		acme.apply(t, affinityPod("probe-ns", "", "probe", "podAffinity", "sel-beta-secret", `,"namespaces":["beta-default"]`), "-n", "sel-aff")
		unschedulable(t, acme, "sel-aff", "probe", "beta's pod is not among the pods a selector of every namespace selects")
		unschedulable(t, acme, "sel-aff", "probe-ns", "beta's namespace named is acme's namespace of that name")
		assert.Contains(t, admin(t, "get", "pod", "probe", "-n", "acme-sel-aff", "-o", "jsonpath={.spec.affinity}"), `"zoo.kubectl-zoo.io/tenant"`)
		assert.Contains(t, admin(t, "get", "pod", "probe-ns", "-n", "acme-sel-aff", "-o", "jsonpath={.spec.affinity}"), `"acme-beta-default"`)
		assert.JSONEq(t, `{}`, acme.k(t, "get", "pod", "probe", "-n", "sel-aff", "-o",
			"jsonpath={.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector}"), "acme reads back what it wrote")

		// Denial of service: an existing pod's anti-affinity keeps the pods
		// it selects off its node, whoever's they are.
		acme.apply(t, affinityPod("blocker", "", "blocker", "podAntiAffinity", "sel-beta-late", everyNamespace), "-n", "sel-aff")
		scheduled(t, acme, "sel-aff", "blocker", "acme's blocker runs")
		beta.apply(t, affinityPod("sel-late", "", "sel-beta-late", "", "", ""))
		defer beta.run(t, "", "delete", "pod", "sel-late", "--wait=false")
		scheduled(t, beta, "default", "sel-late", "acme's anti-affinity does not reach beta's pod")
	})

	t.Run("through the proxy: server-side apply and patches of a workload", func(t *testing.T) {
		deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"sel-web"},"spec":{"replicas":0,` +
			`"selector":{"matchLabels":{"app":"sel-web"}},"template":{"metadata":{"labels":{"app":"sel-web"}},"spec":` +
			affinitySpec("podAntiAffinity", "sel-beta-late", everyNamespace) + `}}}`
		acme.apply(t, deploy, "-n", "sel-aff", "--server-side")
		defer acme.run(t, "", "delete", "deployment", "sel-web", "-n", "sel-aff")
		upstream := func() string {
			return admin(t, "get", "deployment", "sel-web", "-n", "acme-sel-aff", "-o", "jsonpath={.spec.template.spec.affinity}")
		}
		assert.Contains(t, upstream(), `{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]}`, "apply is confined")
		acme.k(t, "patch", "deployment", "sel-web", "-n", "sel-aff", "--type=strategic", "-p",
			`{"spec":{"template":{"spec":{"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":`+
				`{"topologyKey":"kubernetes.io/hostname","labelSelector":{},"namespaces":["beta-default"],"namespaceSelector":{}}}]}}}}}}`)
		assert.Contains(t, upstream(), `"namespaces":["acme-beta-default"]`, "a strategic merge patch is confined")
		assert.NotContains(t, upstream(), `"namespaceSelector":{}`, "no selector of every namespace reaches the upstream")
		acme.k(t, "patch", "deployment", "sel-web", "-n", "sel-aff", "--type=json", "-p",
			`[{"op":"replace","path":"/spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/namespaceSelector",`+
				`"value":{"matchExpressions":[{"key":"team","operator":"DoesNotExist"}]}}]`)
		assert.Contains(t, upstream(), `{"matchExpressions":[{"key":"team","operator":"DoesNotExist"},{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]}`,
			"a JSON patch is confined")
	})

	t.Run("through the server", func(t *testing.T) {
		srv := viaServer(t, lb, "acme")
		srv.apply(t, affinityPod("probe-srv", "", "probe", "podAffinity", "sel-beta-secret", everyNamespace), "-n", "sel-aff")
		unschedulable(t, srv, "sel-aff", "probe-srv", "beta's pod is not among the pods a selector of every namespace selects")
	})

	t.Run("the tenant's identity directly upstream", func(t *testing.T) {
		kc := framework.Cluster().Kubeconfig
		refusedAffinity(t, kc, tenantIdentity, affinityPod("probe-up", "acme-sel-aff", "probe", "podAffinity", "sel-beta-secret", everyNamespace))
		refusedAffinity(t, kc, tenantIdentity, affinityPod("probe-up", "acme-sel-aff", "probe", "podAffinity", "sel-beta-secret", `,"namespaces":["beta-default"]`))
		refusedAffinity(t, kc, tenantIdentity, affinityPod("probe-up", "acme-sel-aff", "probe", "podAntiAffinity", "sel-beta-late",
			`,"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"NotIn","values":["acme"]}]}`))
		refusedAffinity(t, kc, tenantIdentity, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"probe-up","namespace":"acme-sel-aff"},"spec":{`+
			`"selector":{"matchLabels":{"app":"probe"}},"template":{"metadata":{"labels":{"app":"probe"}},"spec":`+
			affinitySpec("podAffinity", "sel-beta-secret", everyNamespace)+`}}}`)
	})

	t.Run("a tenant pod's ServiceAccount token", func(t *testing.T) {
		acme.k(t, "create", "rolebinding", "sel-aff-sa", "-n", "sel-aff", "--clusterrole=admin", "--serviceaccount=sel-aff:default")
		kc := saKubeconfig(t, acme, "sel-aff")
		refusedAffinity(t, kc, nil, affinityPod("probe-sa", "acme-sel-aff", "probe", "podAffinity", "sel-beta-secret", everyNamespace))
		refusedAffinity(t, kc, nil, affinityPod("probe-sa", "acme-sel-aff", "probe", "podAntiAffinity", "sel-beta-late", `,"namespaces":["beta-default","acme-sel-aff"]`))
	})

	t.Run("acme's own pods are selected", func(t *testing.T) {
		acme.apply(t, affinityPod("own-target", "", "sel-acme-own", "", "", ""))
		defer acme.run(t, "", "delete", "pod", "own-target", "--wait=false")
		scheduled(t, acme, "default", "own-target", "acme's pod runs")
		acme.apply(t, affinityPod("probe-own", "", "probe", "podAffinity", "sel-acme-own", everyNamespace), "-n", "sel-aff")
		acme.apply(t, affinityPod("probe-own-ns", "", "probe", "podAffinity", "sel-acme-own", `,"namespaces":["default"]`), "-n", "sel-aff")
		scheduled(t, acme, "sel-aff", "probe-own", "a pod of acme's default matches a selector of every (acme) namespace")
		scheduled(t, acme, "sel-aff", "probe-own-ns", "a pod of acme's default matches a term naming default")
	})

	assert.Equal(t, before, othersState(t), "nothing outside acme changed")
	assert.Empty(t, admin(t, "get", "pods", "probe-up", "probe-sa", "-n", "acme-sel-aff", "-o", "name", "--ignore-not-found"), "no refused pod exists")
	assert.Empty(t, admin(t, "get", "deployments", "probe-up", "-n", "acme-sel-aff", "-o", "name", "--ignore-not-found"), "no refused deployment exists")
}
