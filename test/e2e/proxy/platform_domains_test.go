package proxy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Keys in the platform's domains (translate.PlatformDomains) on namespaces
// and Services (issue 24, class 4): the attacks of a tenant that sets keys
// which admission plugins, add-ons and load balancers read, on every path a
// tenant has to the upstream.

// byUpstreamMetadata is the upstream policy's refusal; the proxy's is
// byProxyMetadata ("belongs to the platform", singular).
const byUpstreamMetadata = "ValidatingAdmissionPolicy 'zoo-tenant-metadata'"

// layer is one path of acme's to the upstream: how to run kubectl on it,
// the names of acme's namespace there, and who refuses.
type layer struct {
	name   string
	ns     string // acme's namespace "dom" as this path names it
	denial string
	// nsLabels are what a namespace acme creates on this path must carry
	// besides (the proxies add them).
	nsLabels string
	run      func(t *testing.T, stdin string, args ...string) framework.Result
}

func upstreamLayer(name, kubeconfig string, flags []string) layer {
	return layer{name: name, ns: "acme-dom", denial: byUpstreamMetadata,
		nsLabels: "zoo.kubectl-zoo.io/tenant: acme, pod-security.kubernetes.io/enforce: baseline, ",
		run: func(t *testing.T, stdin string, args ...string) framework.Result {
			var in []byte
			if stdin != "" {
				in = []byte(stdin)
			}
			return framework.Run(t.Context(), in, framework.KubectlPath(), append(append([]string{"--kubeconfig", kubeconfig}, flags...), args...)...)
		}}
}

func proxyLayer(name string, s *served) layer {
	return layer{name: name, ns: "dom", denial: byProxyMetadata,
		run: func(t *testing.T, stdin string, args ...string) framework.Result { return s.run(t, stdin, args...) }}
}

// domainAttack is one write a layer must refuse; its arguments name the
// namespace as %[1]s, and a namespace's labels hold the layer's nsLabels at
// %[2]s.
type domainAttack struct {
	name, stdin string
	args        []string
	noSA        bool // the ServiceAccount has no right to it anyway
}

func (a domainAttack) on(l layer) (string, []string) {
	args := make([]string, len(a.args))
	for i, s := range a.args {
		args[i] = strings.ReplaceAll(s, "%[1]s", l.ns)
	}
	return strings.NewReplacer("%[1]s", l.ns, "%[2]s", l.nsLabels).Replace(a.stdin), args
}

// namespaceAttacks set keys of domains the old table did not list on acme's
// namespace: OpenShift's node selector and run level, Istio's opt-out,
// Rancher's project, Calico's IP pool, Gatekeeper's exemption, and the
// removal of a key the platform set.
var namespaceAttacks = []domainAttack{
	{name: "annotate OpenShift's node selector", args: []string{"annotate", "ns", "%[1]s", "openshift.io/node-selector=role=infra"}},
	{name: "label Istio's opt-out", args: []string{"label", "ns", "%[1]s", "istio-injection=disabled"}},
	{name: "merge patch a Rancher project", args: []string{"patch", "ns", "%[1]s", "--type=merge",
		`-p={"metadata":{"annotations":{"field.cattle.io/projectId":"c-1:p-platform"}}}`}},
	{name: "strategic patch an Istio revision", args: []string{"patch", "ns", "%[1]s", "--type=strategic",
		`-p={"metadata":{"labels":{"istio.io/rev":"canary"}}}`}},
	{name: "json patch Calico's IP pool", args: []string{"patch", "ns", "%[1]s", "--type=json",
		`-p=[{"op":"add","path":"/metadata/annotations/cni.projectcalico.org~1ipv4pools","value":"[\"trusted\"]"}]`}},
	{name: "remove the platform's node selector", args: []string{"annotate", "ns", "%[1]s", "scheduler.alpha.kubernetes.io/node-selector-"}},
	{name: "json patch replacing the platform's node selector", args: []string{"patch", "ns", "%[1]s", "--type=json",
		`-p=[{"op":"replace","path":"/metadata/annotations/scheduler.alpha.kubernetes.io~1node-selector","value":"role=infra"}]`}},
	{name: "server-side apply Gatekeeper's exemption", stdin: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %[1]s\n  labels: {admission.gatekeeper.sh/ignore: \"true\"}\n",
		args: []string{"apply", "--server-side", "--force-conflicts", "-f", "-"}},
	{name: "create a namespace at OpenShift's run level 0", noSA: true,
		stdin: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %[1]s-two\n  labels: {%[2]sopenshift.io/run-level: \"0\"}\n",
		args:  []string{"create", "-f", "-"}},
}

// serviceAttacks set keys that kube-proxy and load balancers read on
// acme's Service web.
var serviceAttacks = []domainAttack{
	{name: "label kube-proxy's service-proxy-name", args: []string{"-n", "%[1]s", "label", "svc", "web", "service.kubernetes.io/service-proxy-name=other"}},
	{name: "annotate a shared MetalLB address", args: []string{"-n", "%[1]s", "annotate", "svc", "web", "metallb.universe.tf/allow-shared-ip=beta"}},
	{name: "merge patch Cilium's sharing key", args: []string{"-n", "%[1]s", "patch", "svc", "web", "--type=merge",
		`-p={"metadata":{"annotations":{"lbipam.cilium.io/sharing-key":"beta"}}}`}},
	{name: "json patch an Azure public IP", args: []string{"-n", "%[1]s", "patch", "svc", "web", "--type=json",
		`-p=[{"op":"add","path":"/metadata/annotations/service.beta.kubernetes.io~1azure-pip-name","value":"beta-ip"}]`}},
	{name: "server-side apply a GKE subnet", stdin: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: %[1]s\n  annotations: {networking.gke.io/internal-load-balancer-subnet: platform}\n",
		args: []string{"apply", "--server-side", "--force-conflicts", "--field-manager=attack", "-f", "-"}},
	{name: "remove the platform's load balancer annotation", args: []string{"-n", "%[1]s", "annotate", "svc", "web", "service.beta.kubernetes.io/aws-load-balancer-internal-"}},
	{name: "create a Service kube-proxy skips", stdin: "apiVersion: v1\nkind: Service\nmetadata:\n  name: headless\n  namespace: %[1]s\n  labels: {service.kubernetes.io/headless: \"\"}\nspec:\n  ports: [{port: 80}]\n",
		args: []string{"create", "-f", "-"}},
}

// domainsState is what no attack may change: beta's and the platform's
// namespaces and classes, and the metadata of acme's namespace and Service.
func domainsState(t *testing.T) string {
	return betaAndPlatform(t) +
		admin(t, "get", "ns", "acme-dom", "-o", "jsonpath={.metadata.labels} {.metadata.annotations}") +
		admin(t, "get", "svc", "-n", "acme-dom", "-o", `jsonpath={range .items[*]}{.metadata.name} {.metadata.labels} {.metadata.annotations}{"\n"}{end}`)
}

// TestPlatformDomainsConfined (issue 24, class 4): acme sets keys of the
// platform's domains on its namespace and its Service through its proxy,
// through the server, as its admin directly upstream and with its pod's
// ServiceAccount token (bound to a Role with every right on the namespace
// and its Services): the proxies refuse with their 403 naming the key, the
// upstream with zoo-tenant-metadata. Recommended labels, unprefixed keys,
// kubectl's apply record, a Service's topology mode and a namespace with
// 150 labels stay acme's to write, on every path.
func TestPlatformDomainsConfined(t *testing.T) {
	acme := serve(t, "acme")
	acme.apply(t, `apiVersion: v1
kind: Namespace
metadata:
  name: dom
  labels: {app.kubernetes.io/name: dom, team: a, e2e-run: "1"}
  annotations: {kubernetes.io/description: mine}
`)
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "dom", "dom-two", "--wait=false") })
	acme.apply(t, `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: dom
  labels: {app.kubernetes.io/name: web, app: web}
  annotations: {service.kubernetes.io/topology-mode: Auto}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`)
	acme.apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: everything, namespace: dom}
rules:
- {apiGroups: [""], resources: [namespaces, services], verbs: ["*"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: everything, namespace: dom}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: everything}
subjects: [{kind: ServiceAccount, name: default, namespace: dom}]
`)
	// The platform's own keys on acme's namespace and Service: acme may
	// see them, not remove or change them.
	admin(t, "annotate", "ns", "acme-dom", "scheduler.alpha.kubernetes.io/node-selector=role=tenant")
	admin(t, "-n", "acme-dom", "annotate", "svc", "web", "service.beta.kubernetes.io/aws-load-balancer-internal=true")
	lb := servers(t)
	layers := []layer{
		proxyLayer("proxy", acme),
		proxyLayer("server", viaServer(t, lb, "acme")),
		upstreamLayer("admin-upstream", framework.Cluster().Kubeconfig, tenantIdentity),
		upstreamLayer("serviceaccount", saKubeconfig(t, acme, "dom"), nil),
	}
	assert.Contains(t, acme.k(t, "get", "ns", "dom", "-o", "jsonpath={.metadata.annotations}"), "scheduler.alpha.kubernetes.io/node-selector",
		"acme sees the platform's key")

	before := domainsState(t)
	for _, l := range layers {
		for _, attacks := range [][]domainAttack{namespaceAttacks, serviceAttacks} {
			for _, a := range attacks {
				if a.noSA && l.name == "serviceaccount" {
					continue
				}
				t.Run(l.name+"/"+a.name, func(t *testing.T) {
					stdin, args := a.on(l)
					res := l.run(t, stdin, args...)
					require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
					assert.Contains(t, res.Stderr, l.denial)
					if l.denial == byProxyMetadata {
						assert.NotContains(t, res.Stderr, "ValidatingAdmissionPolicy", "the proxy refuses before the upstream sees it")
					}
				})
			}
		}
	}
	assert.Equal(t, before, domainsState(t), "nothing of acme's metadata, beta or the platform changed")
	assert.Empty(t, admin(t, "get", "ns", "acme-dom-two", "--ignore-not-found", "-o", "name"))

	for _, l := range layers {
		t.Run(l.name+"/positive", func(t *testing.T) { domainPositives(t, l) })
	}
}

// domainPositives: what stays acme's on a path — recommended and
// unprefixed labels, a description, a Service's topology mode, client-side
// apply (kubectl's record annotation), a replace through the proxies that
// omits the platform's keys, and 150 labels at once (the policy's cost is a
// few string operations per key and domain).
func domainPositives(t *testing.T, l layer) {
	ok := func(stdin string, args ...string) {
		t.Helper()
		res := l.run(t, stdin, args...)
		require.NoError(t, res.Err, "stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
	ok("", "label", "ns", l.ns, "app.kubernetes.io/part-of="+l.name, "team="+l.name, "--overwrite")
	ok("", "annotate", "ns", l.ns, "kubernetes.io/description="+l.name, "--overwrite")
	ok("", "-n", l.ns, "annotate", "svc", "web", "service.kubernetes.io/topology-mode=Disabled", "--overwrite")
	ok("", "-n", l.ns, "label", "svc", "web", "app.kubernetes.io/version="+l.name, "--overwrite")
	ok(fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: web-%[1]s\n  namespace: %[2]s\n  labels: {app.kubernetes.io/name: web}\nspec:\n  ports: [{port: 80}]\n", l.name, l.ns),
		"apply", "-f", "-")
	assert.Contains(t, admin(t, "get", "svc", "-n", "acme-dom", "web-"+l.name, "-o", "jsonpath={.metadata.annotations}"),
		"kubectl.kubernetes.io/last-applied-configuration")
	if l.denial == byProxyMetadata {
		// A replace that drops every annotation keeps the platform's
		// (the proxies copy what it omits); upstream it is refused.
		var svc map[string]any
		require.NoError(t, json.Unmarshal([]byte(l.run(t, "", "-n", l.ns, "get", "svc", "web", "-o", "json").Stdout), &svc))
		meta := svc["metadata"].(map[string]any)
		meta["annotations"] = map[string]any{"mine": l.name}
		edited, err := json.Marshal(svc)
		require.NoError(t, err)
		ok(string(edited), "replace", "-f", "-")
	}
	assert.Contains(t, admin(t, "get", "svc", "-n", "acme-dom", "web", "-o", "jsonpath={.metadata.annotations}"),
		`"service.beta.kubernetes.io/aws-load-balancer-internal":"true"`, "every write kept the platform's key")
	many := []string{"label", "ns", l.ns, "--overwrite"}
	for i := range 150 {
		many = append(many, fmt.Sprintf("team.example.com/k%d=%s", i, l.name))
	}
	ok("", many...)
	labels := admin(t, "get", "ns", "acme-dom", "-o", "jsonpath={.metadata.labels}")
	assert.Contains(t, labels, `"team.example.com/k149":"`+l.name+`"`)
	assert.Contains(t, labels, `"app.kubernetes.io/part-of":"`+l.name+`"`)
	assert.Contains(t, admin(t, "get", "ns", "acme-dom", "-o", "jsonpath={.metadata.annotations}"),
		"scheduler.alpha.kubernetes.io/node-selector", "every write kept the platform's key")
}
