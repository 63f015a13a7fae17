package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Class 1 of the isolation by construction: lifecycle and platform
// subresources. Each attack is tried through acme's proxy, through the
// multi-tenant server, with acme's admin identity directly upstream and
// with the token of a ServiceAccount of acme that holds every right in its
// namespace; each names the layer that stopped it, and afterwards the
// upstream is as it was.

// attackPath is one way a tenant reaches the upstream.
type attackPath struct {
	name string
	// run runs kubectl that way, with stdin.
	run func(t *testing.T, stdin string, args ...string) framework.Result
	// ns maps a namespace of acme's view to the one this path names.
	ns func(string) string
	// layer is the message part of the layer that must refuse.
	layer string
}

// attackPaths returns the four paths for acme: proxy and server refuse in
// the translator, the identity and the ServiceAccount meet zoo-tenant.
func attackPaths(t *testing.T, acme *served, saNamespace string) []attackPath {
	t.Helper()
	own := func(ns string) string { return ns }
	upstream := func(ns string) string { return "acme-" + ns }
	sa := saWithAllRights(t, acme, saNamespace)
	lb := servers(t)
	server := viaServer(t, lb, "acme")
	kubectlAs := func(kubeconfig string, flags ...string) func(*testing.T, string, ...string) framework.Result {
		return func(t *testing.T, stdin string, args ...string) framework.Result {
			var in []byte
			if stdin != "" {
				in = []byte(stdin)
			}
			full := append(append([]string{"--kubeconfig", kubeconfig}, flags...), args...)
			return framework.Run(t.Context(), in, framework.KubectlPath(), full...)
		}
	}
	return []attackPath{
		{name: "through the proxy", run: acme.run, ns: own, layer: "proxy"},
		{name: "through the server", run: server.run, ns: own, layer: "proxy"},
		{name: "the tenant identity upstream", run: kubectlAs(framework.Cluster().Kubeconfig, tenantIdentity...), ns: upstream, layer: "zoo-tenant"},
		{name: "a tenant ServiceAccount upstream", run: kubectlAs(sa), ns: upstream, layer: "zoo-tenant"},
	}
}

// saWithAllRights binds acme's ServiceAccount default of ns, through the
// proxy, to a ClusterRole of acme that grants everything, and returns a
// kubeconfig with its token: the strongest identity a tenant pod can hold.
func saWithAllRights(t *testing.T, acme *served, ns string) string {
	t.Helper()
	acme.apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: everything}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: everything, namespace: `+ns+`}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: everything}
subjects: [{kind: ServiceAccount, name: default, namespace: `+ns+`}]
`)
	return saKubeconfig(t, acme, ns)
}

// refusedBy asserts that res was refused by layer: the proxy's translator
// ("forbidden: ..." from kubectl-zoo) or the zoo-tenant policy (also for a
// request the proxy forwarded as the tenant identity).
func refusedBy(t *testing.T, res framework.Result, layer, want string) {
	t.Helper()
	require.Error(t, res.Err, "the attack was not refused; stdout: %s", res.Stdout)
	assert.Contains(t, res.Stderr, want)
	if layer == "zoo-tenant" {
		assert.Contains(t, res.Stderr, "zoo-tenant", "the upstream policy must be the layer that refused")
	} else {
		assert.NotContains(t, res.Stderr, "ValidatingAdmissionPolicy", "the proxy must refuse before the upstream")
	}
}

// TestNamespaceFinalizeKeepsContents: a tenant that empties a namespace's
// spec.finalizers and then deletes it would have the namespace gone while its
// pods run on, outside its view, its quota and `tenant delete`. The
// finalize subresource is confined: only the namespace controller removes
// "kubernetes". The rule compares the old object with the new, so the
// zoo-tenant policy holds it on every path, the proxies' included. Adding
// and removing finalizers of its own works, as in any cluster
// (conformance).
func TestNamespaceFinalizeKeepsContents(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "fin")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "fin", "--wait=false") })
	acme.k(t, "-n", "fin", "create", "configmap", "keep")
	paths := attackPaths(t, acme, "fin")
	before := othersState(t)
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			ns := p.ns("fin")
			for _, finalizers := range [][]string{{}, {"example.com/other"}} {
				res := p.run(t, withFinalizers(t, p, ns, finalizers...), "replace", "--raw", "/api/v1/namespaces/"+ns+"/finalize", "-f", "-")
				refusedBy(t, res, "zoo-tenant", `may not remove the finalizer`)
			}
		})
	}
	assert.Equal(t, "[\"kubernetes\"]", admin(t, "get", "namespace", "acme-fin", "-o", "jsonpath={.spec.finalizers}"))
	assert.Equal(t, before, othersState(t), "nothing of beta or the platform changed")
	assert.Equal(t, "keep", strings.TrimSpace(admin(t, "-n", "acme-fin", "get", "configmap", "keep", "-o", "jsonpath={.metadata.name}")))

	t.Run("a finalizer of the tenant's own comes and goes", func(t *testing.T) {
		self := attackPath{run: acme.run}
		finalize := func(finalizers ...string) framework.Result {
			return acme.run(t, withFinalizers(t, self, "fin", finalizers...), "replace", "--raw", "/api/v1/namespaces/fin/finalize", "-f", "-")
		}
		out := finalize("kubernetes", "example.com/mine")
		require.NoError(t, out.Err, out.Stderr)
		assert.Contains(t, admin(t, "get", "namespace", "acme-fin", "-o", "jsonpath={.spec.finalizers}"), "example.com/mine")
		out = finalize("kubernetes")
		require.NoError(t, out.Err, out.Stderr)
		assert.Equal(t, "[\"kubernetes\"]", admin(t, "get", "namespace", "acme-fin", "-o", "jsonpath={.spec.finalizers}"))
	})
}

// withFinalizers reads namespace ns the way p does and returns it with
// spec.finalizers set: the whole object, as an attacker would send it.
func withFinalizers(t *testing.T, p attackPath, ns string, finalizers ...string) string {
	t.Helper()
	res := p.run(t, "", "get", "namespace", ns, "-o", "json")
	require.NoError(t, res.Err, res.Stderr)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &obj))
	list := make([]any, 0, len(finalizers))
	for _, f := range finalizers {
		list = append(list, f)
	}
	obj["spec"] = map[string]any{"finalizers": list}
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	return string(out)
}

// TestResourceClaimAllocationIsThePlatforms: the allocation in a
// ResourceClaim's status is what the kubelet prepares devices by; a tenant
// that wrote one would take a device the scheduler never gave it. The
// status is read-only for tenants on every path; reading it works.
func TestResourceClaimAllocationIsThePlatforms(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "dra")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "dra", "--wait=false") })
	acme.apply(t, `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: dra}
spec:
  devices:
    requests:
    - name: req
      exactly: {deviceClassName: gpu.example.com}
`)
	allocation := `{"status":{"allocation":{"devices":{"results":[{"request":"req","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}}`
	paths := attackPaths(t, acme, "dra")
	before := othersState(t)
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			res := p.run(t, "", "-n", p.ns("dra"), "patch", "resourceclaim", "gpu", "--subresource=status", "--type=merge", "-p", allocation)
			refusedBy(t, res, p.layer, "the status of resourceclaims")
		})
	}
	assert.Empty(t, admin(t, "-n", "acme-dra", "get", "resourceclaim", "gpu", "-o", "jsonpath={.status.allocation}"))
	assert.Equal(t, before, othersState(t), "nothing of beta or the platform changed")
	out := acme.k(t, "-n", "dra", "get", "--raw", "/apis/resource.k8s.io/v1/namespaces/dra/resourceclaims/gpu/status")
	assert.Contains(t, out, `"name":"gpu"`)
}

// TestPodStatusPhaseIsThePlatforms: a pod whose status reads Failed is no
// longer charged by quota, while the kubelet lets it run out its grace
// period, and a nominatedNodeName makes the scheduler hold capacity. Both
// are the platform's, like a pod's addresses, on every path; the pod's
// conditions stay the tenant's. The pod stays Pending: no node matches its
// selector (bound to a missing node, the pod GC deleted it midway on a slow
// machine).
func TestPodStatusPhaseIsThePlatforms(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "phase")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "phase", "--wait=false") })
	acme.apply(t, `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: phase}
spec: {containers: [{name: c, image: busybox}], nodeSelector: {example.com/no-such-node: "true"}}
`)
	paths := attackPaths(t, acme, "phase")
	before := othersState(t)
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for _, patch := range []string{`{"status":{"phase":"Failed"}}`, `{"status":{"nominatedNodeName":"kwok-node-0"}}`} {
				res := p.run(t, "", "-n", p.ns("phase"), "patch", "pod", "p", "--subresource=status", "--type=merge", "-p", patch)
				refusedBy(t, res, "zoo-tenant", "tenants may not change")
			}
			res := p.run(t, "", "-n", p.ns("phase"), "patch", "pod", "p", "--subresource=status", "--type=merge", "-p",
				`{"status":{"conditions":[{"type":"example.com/Checked","status":"True"}]}}`)
			require.NoError(t, res.Err, res.Stderr)
		})
	}
	assert.Equal(t, "Pending", admin(t, "-n", "acme-phase", "get", "pod", "p", "-o", "jsonpath={.status.phase}"))
	assert.Empty(t, admin(t, "-n", "acme-phase", "get", "pod", "p", "-o", "jsonpath={.status.nominatedNodeName}"))
	assert.Equal(t, before, othersState(t), "nothing of beta or the platform changed")
}
