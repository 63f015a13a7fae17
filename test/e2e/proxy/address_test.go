package proxy_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Addresses the cluster dials or routes are references
// (pkg/translate/refs_address.go): a Service's externalName may only name
// one of the tenant's Services, and the Endpoints and EndpointSlices a
// tenant writes carry public unicast IP addresses only. These tests attack
// both rules four ways — through acme's serve, through the server, as
// acme's identity directly upstream and with a token of a ServiceAccount of
// acme's — and check which layer stopped each attempt and that nothing of
// beta or the platform changed.

// Messages of the two layers: the proxy's translator (a 403 naming the
// field) and the zoo-tenant policy upstream.
const (
	byProxy  = "is forbidden: "
	byPolicy = "ValidatingAdmissionPolicy 'zoo-tenant'"
	// byValidation is the API server's own validation of endpoint
	// addresses (loopback, link-local): it runs before admission.
	byValidation = "Invalid value"
)

// layerName names a layer for the test's log.
var layerName = map[string]string{byProxy: "the proxy (403)", byPolicy: "the zoo-tenant policy", byValidation: "the API server's validation (422)"}

// attacker is one way acme writes: through a proxy (ns is acme's view of
// its namespace) or directly upstream (ns is the upstream namespace).
type attacker struct {
	name    string
	ns      string
	stopper string // the layer expected to refuse: byProxy or byPolicy
	run     func(t *testing.T, stdin string, args ...string) framework.Result
}

// addressAttackers are the four ways into acme's namespace ns, which they
// create: acme's serve, the server, acme's admin directly upstream and the
// ServiceAccount default of acme-<ns>, bound to zoo-tenant-admin.
func addressAttackers(t *testing.T, ns string) (*served, []attacker) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", ns)
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", ns, "--wait=false") })
	admin(t, "-n", "acme-"+ns, "create", "rolebinding", "sa-all", "--clusterrole=zoo-tenant-admin", "--serviceaccount=acme-"+ns+":default")
	sa := saKubeconfig(t, acme, ns)
	server := viaServer(t, servers(t), "acme")
	upstream := func(kubeconfig string, flags ...string) func(t *testing.T, stdin string, args ...string) framework.Result {
		return func(t *testing.T, stdin string, args ...string) framework.Result {
			var in []byte
			if stdin != "" {
				in = []byte(stdin)
			}
			all := append(append([]string{"--kubeconfig", kubeconfig}, flags...), args...)
			return framework.Run(t.Context(), in, framework.KubectlPath(), all...)
		}
	}
	return acme, []attacker{
		{"serve", ns, byProxy, acme.run},
		{"server", ns, byProxy, server.run},
		{"tenant identity upstream", "acme-" + ns, byPolicy, upstream(framework.Cluster().Kubeconfig, tenantIdentity...)},
		{"ServiceAccount token", "acme-" + ns, byPolicy, upstream(sa)},
	}
}

// addrRefusedBy asserts that res failed with a message naming field, from the
// layer stopper (or, for addresses the API server refuses itself, its own
// validation when also is set), and returns the layer that answered.
func addrRefusedBy(t *testing.T, res framework.Result, stopper, field string, also string) string {
	t.Helper()
	require.Error(t, res.Err, "accepted: %s", res.Stdout)
	if also != "" && strings.Contains(res.Stderr, also) {
		return layerName[also]
	}
	assert.Contains(t, res.Stderr, stopper, "the expected layer stops it")
	assert.Contains(t, res.Stderr, field, "the refusal names the field")
	if stopper == byProxy {
		assert.NotContains(t, res.Stderr, byPolicy, "the proxy answers before the upstream")
	}
	return layerName[stopper]
}

// netState is what the other tenant and the platform hold that an address
// attack could change: every Service's type and external name, every
// Endpoints' and EndpointSlice's addresses, and othersState. Namespaces an
// earlier test's cleanup is deleting are left out, as othersState leaves
// them out.
func netState(t *testing.T) string {
	terminating := terminatingNamespaces(t) // untranslated_test.go
	rows := admin(t, "get", "svc,endpoints,endpointslices", "-A", "-o",
		"custom-columns=NS:.metadata.namespace,KIND:.kind,NAME:.metadata.name,TYPE:.spec.type,EXT:.spec.externalName,"+
			"IPS:.subsets[*].addresses[*].ip,NOTREADY:.subsets[*].notReadyAddresses[*].ip,SLICE:.endpoints[*].addresses[*]", "--no-headers")
	var keep []string
	for _, line := range strings.Split(rows, "\n") {
		if ns, _, _ := strings.Cut(line, " "); !terminating[ns] {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n") + othersState(t)
}

// withoutAcme drops the lines of acme's namespaces from a netState, and
// the padding of its columns: kubectl pads every column to its longest
// value, acme's included, which come and go with acme's namespaces.
func withoutAcme(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "acme-") {
			keep = append(keep, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(keep, "\n")
}

// betaPodIP runs a pod of beta's behind the Service web in beta's
// namespace ns and returns the pod's address (kwok's).
func betaPodIP(t *testing.T, ns string) string {
	beta := serve(t, "beta")
	beta.k(t, "create", "namespace", ns)
	t.Cleanup(func() { beta.run(t, "", "delete", "namespace", ns, "--wait=false") })
	beta.k(t, "-n", ns, "run", "web", "--image=nginx", "--labels=app=web")
	beta.k(t, "-n", ns, "expose", "pod", "web", "--port=80")
	var ip string
	require.Eventually(t, func() bool {
		ip = admin(t, "-n", "beta-"+ns, "get", "pod", "web", "-o", "jsonpath={.status.podIP}")
		return ip != ""
	}, 60*time.Second, 250*time.Millisecond, "kwok gives beta's pod an address")
	return ip
}

// externalNameService is a Service of type ExternalName.
func externalNameService(ns, name, externalName string) string {
	return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
		"spec: {type: ExternalName, externalName: '" + externalName + "'}\n"
}

// TestExternalNameConfined: attack 1. A Service's externalName pointing at
// loopback (in any spelling), the cloud's metadata host, the platform's API
// server Service or beta's Service is refused — or, through a proxy,
// translated into acme's own namespace, where it names acme's Service of
// that name and nothing else. A conversion webhook whose Service acme then
// turns into such an ExternalName (the order that a check of the webhook
// alone would miss) is held the same way, for every form of update. A
// Service of acme's own still works.
func TestExternalNameConfined(t *testing.T) {
	betaPodIP(t, "extname") // beta's Service web in beta-extname
	acme, ways := addressAttackers(t, "extname")
	acme.apply(t, externalNameService("extname", "hook", "backend.extname.svc.cluster.local"))
	assert.Equal(t, "backend.acme-extname.svc.cluster.local", admin(t, "-n", "acme-extname", "get", "svc", "hook", "-o", "jsonpath={.spec.externalName}"))
	assert.Equal(t, "backend.extname.svc.cluster.local", acme.k(t, "-n", "extname", "get", "svc", "hook", "-o", "jsonpath={.spec.externalName}"))
	acme.apply(t, webhookCRD)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "widgets.extname.example.com", "--wait=false") })
	assert.Equal(t, "acme-extname/hook", admin(t, "get", "crd", "widgets.acme-extname.example.com", "-o",
		"jsonpath={.spec.conversion.webhook.clientConfig.service.namespace}/{.spec.conversion.webhook.clientConfig.service.name}"))
	before := withoutAcme(netState(t))

	// Names the proxy maps into acme's namespaces (harmless there), refused
	// upstream; and names refused everywhere.
	translated := map[string]string{
		"kubernetes.default.svc.cluster.local": "kubernetes.acme-default.svc.cluster.local",
		"kubernetes.default.svc":               "kubernetes.acme-default.svc",
		"web.beta-extname.svc.cluster.local.":  "web.acme-beta-extname.svc.cluster.local.",
	}
	names := []string{"127.0.0.1", "2130706433", "0x7f.1", "127.1", "localhost", "localhost.", "metadata.google.internal",
		"169.254.169.254", "web", "web.extname", "web.extname.svc.example.com", "web.beta-extname.svc.cluster.local.evil.com",
		"kubernetes.default.svc.cluster.local", "kubernetes.default.svc", "web.beta-extname.svc.cluster.local."}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			for i, name := range names {
				svc := "ext-" + string(rune('a'+i))
				res := w.run(t, externalNameService(w.ns, svc, name), "create", "-f", "-")
				if up, ok := translated[name]; ok && w.stopper == byProxy {
					require.NoError(t, res.Err, "%s: %s", name, res.Stderr)
					assert.Equal(t, up, admin(t, "-n", "acme-extname", "get", "svc", svc, "-o", "jsonpath={.spec.externalName}"), "mapped into acme's namespace")
					w.run(t, "", "-n", w.ns, "delete", "svc", svc)
					continue
				}
				t.Logf("%s: stopped by %s", name, addrRefusedBy(t, res, w.stopper, "spec.externalName", ""))
			}
			own := "web." + w.ns + ".svc."
			res := w.run(t, externalNameService(w.ns, "own", own), "create", "-f", "-")
			require.NoError(t, res.Err, "a Service of acme's own: %s", res.Stderr)
			w.run(t, "", "-n", w.ns, "delete", "svc", "own")
		})
		t.Run(w.name+": the webhook's Service changed afterwards", func(t *testing.T) {
			for _, args := range [][]string{
				{"patch", "svc", "hook", "--type=merge", "-p", `{"spec":{"externalName":"127.0.0.1"}}`},
				{"patch", "svc", "hook", "--type=strategic", "-p", `{"spec":{"externalName":"kubernetes.default.svc.cluster.local.evil.com"}}`},
				{"patch", "svc", "hook", "--type=json", "-p", `[{"op":"replace","path":"/spec/externalName","value":"localhost"}]`},
				{"patch", "svc", "hook", "--type=json", "-p", `[{"op":"copy","from":"/metadata/name","path":"/spec/externalName"}]`},
			} {
				res := w.run(t, "", append([]string{"-n", w.ns}, args...)...)
				t.Logf("%v: stopped by %s", args[3:], addrRefusedBy(t, res, w.stopper, "spec.externalName", ""))
			}
			res := w.run(t, externalNameService(w.ns, "hook", "127.0.0.1"), "apply", "--server-side", "--force-conflicts", "-f", "-")
			addrRefusedBy(t, res, w.stopper, "spec.externalName", "")
			current := w.run(t, "", "-n", w.ns, "get", "svc", "hook", "-o", "json")
			require.NoError(t, current.Err)
			replaced := regexp.MustCompile(`"externalName": "[^"]*"`).ReplaceAllString(current.Stdout, `"externalName": "127.0.0.2"`)
			require.NotEqual(t, current.Stdout, replaced)
			res = w.run(t, replaced, "replace", "-f", "-")
			addrRefusedBy(t, res, w.stopper, "spec.externalName", "")
		})
	}
	assert.Equal(t, "backend.acme-extname.svc.cluster.local", admin(t, "-n", "acme-extname", "get", "svc", "hook", "-o", "jsonpath={.spec.externalName}"),
		"the conversion webhook's Service is unchanged")
	assert.Equal(t, before, withoutAcme(netState(t)), "nothing of beta's or the platform's changed")
}

// webhookCRD is a CRD of acme's whose conversion webhook is its Service
// extname/hook.
const webhookCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.extname.example.com}
spec:
  group: extname.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service: {namespace: extname, name: hook, path: /convert, port: 443}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`

// endpointsOf is an Endpoints object for the Service name with one address.
func endpointsOf(ns, name, ip string) string {
	return "apiVersion: v1\nkind: Endpoints\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
		"subsets: [{addresses: [{ip: '" + ip + "'}], ports: [{port: 80}]}]\n"
}

// sliceOf is an EndpointSlice of the Service ext with one address.
func sliceOf(ns, name, family, addr string) string {
	return "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: " + name + ", namespace: " + ns +
		", labels: {kubernetes.io/service-name: ext}}\naddressType: " + family + "\nendpoints: [{addresses: ['" + addr + "']}]\nports: [{port: 80}]\n"
}

// TestEndpointAddressesConfined: attack 2. A Service without selector whose
// hand-written Endpoints or EndpointSlice send its traffic to loopback, the
// metadata IP, beta's pod, the platform's Service network or any other
// private address is refused, by the proxy or by the zoo-tenant policy
// (the API server's own validation refuses loopback and link-local before
// admission: the policy holds them too, which the proxy's answers show);
// so is an FQDN slice. Public addresses still work, and the
// EndpointSlice controller, which writes the private pod addresses of
// acme's selector Services, is not judged as acme.
func TestEndpointAddressesConfined(t *testing.T) {
	betaIP := betaPodIP(t, "endpts")
	acme, ways := addressAttackers(t, "endpts")
	acme.apply(t, "apiVersion: v1\nkind: Service\nmetadata: {name: ext, namespace: endpts}\nspec: {ports: [{port: 80}]}\n")
	before := withoutAcme(netState(t))

	type address struct{ ip, family, apiRefuses string }
	bad := []address{
		{"127.0.0.1", "IPv4", byValidation}, {"169.254.169.254", "IPv4", byValidation}, {betaIP, "IPv4", ""},
		{"10.96.0.1", "IPv4", ""}, {"100.64.0.1", "IPv4", ""}, {"192.168.0.1", "IPv4", ""}, {"0.0.0.0", "IPv4", byValidation},
		{"::1", "IPv6", byValidation}, {"fd00::1", "IPv6", ""}, {"fe80::1", "IPv6", byValidation}, {"64:ff9b::a00:1", "IPv6", ""},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			for _, a := range bad {
				res := w.run(t, endpointsOf(w.ns, "ext", a.ip), "create", "-f", "-")
				t.Logf("Endpoints %s: stopped by %s", a.ip, addrRefusedBy(t, res, w.stopper, "subsets[].addresses[].ip", a.apiRefuses))
				res = w.run(t, sliceOf(w.ns, "ext-bad", a.family, a.ip), "create", "-f", "-")
				t.Logf("EndpointSlice %s: stopped by %s", a.ip, addrRefusedBy(t, res, w.stopper, "endpoints[].addresses[]", a.apiRefuses))
			}
			for _, host := range []string{"localhost.localdomain", "kubernetes.default.svc.cluster.local", "metadata.google.internal"} {
				res := w.run(t, sliceOf(w.ns, "ext-fqdn", "FQDN", host), "create", "-f", "-")
				t.Logf("FQDN %s: stopped by %s", host, addrRefusedBy(t, res, w.stopper, "addressType", ""))
			}

			// Public addresses work; a later change to a private one is
			// refused in every form.
			w.run(t, "", "-n", w.ns, "delete", "endpoints,endpointslices", "--all")
			require.NoError(t, w.run(t, endpointsOf(w.ns, "ext", "203.0.113.5"), "create", "-f", "-").Err)
			require.NoError(t, w.run(t, sliceOf(w.ns, "ext-pub", "IPv6", "2001:db8::5"), "create", "-f", "-").Err)
			for _, args := range [][]string{
				{"patch", "endpoints", "ext", "--type=merge", "-p", `{"subsets":[{"addresses":[{"ip":"` + betaIP + `"}],"ports":[{"port":80}]}]}`},
				{"patch", "endpoints", "ext", "--type=json", "-p", `[{"op":"add","path":"/subsets/0/notReadyAddresses","value":[{"ip":"10.0.0.9"}]}]`},
				{"patch", "endpointslice", "ext-pub", "--type=json", "-p", `[{"op":"add","path":"/endpoints/0/addresses/-","value":"fd00::9"}]`},
				{"patch", "endpointslice", "ext-pub", "--type=merge", "-p", `{"endpoints":[{"addresses":["::ffff:10.0.0.9"]}]}`},
			} {
				res := w.run(t, "", append([]string{"-n", w.ns}, args...)...)
				require.Error(t, res.Err, "%v accepted", args)
				layers := []string{w.stopper, byValidation} // ::ffff: is invalid in an IPv6 slice
				assert.True(t, strings.Contains(res.Stderr, layers[0]) || strings.Contains(res.Stderr, layers[1]), "%v: %s", args, res.Stderr)
			}
			res := w.run(t, endpointsOf(w.ns, "ext", "192.168.7.7"), "apply", "--server-side", "--force-conflicts", "-f", "-")
			addrRefusedBy(t, res, w.stopper, "subsets[].addresses[].ip", "")
			assert.Equal(t, "203.0.113.5", admin(t, "-n", "acme-endpts", "get", "endpoints", "ext", "-o", "jsonpath={.subsets[*].addresses[*].ip}"))
			w.run(t, "", "-n", w.ns, "delete", "endpoints,endpointslices", "--all")
		})
	}

	t.Run("the controller's writes are not judged as acme's", func(t *testing.T) {
		acme.k(t, "-n", "endpts", "run", "web", "--image=nginx", "--labels=app=web")
		acme.k(t, "-n", "endpts", "expose", "pod", "web", "--port=80")
		var podIP, sliced string
		require.Eventually(t, func() bool {
			podIP = admin(t, "-n", "acme-endpts", "get", "pod", "web", "-o", "jsonpath={.status.podIP}")
			sliced = admin(t, "-n", "acme-endpts", "get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", "jsonpath={.items[*].endpoints[*].addresses[*]}")
			return podIP != "" && sliced == podIP
		}, 60*time.Second, 250*time.Millisecond, "pod %q, slice %q", podIP, sliced)
		assert.Contains(t, acme.k(t, "-n", "endpts", "get", "endpoints", "web", "-o", "jsonpath={.subsets[*].addresses[*].ip}"), podIP)
	})
	assert.Equal(t, before, withoutAcme(netState(t)), "nothing of beta's or the platform's changed")
}

// TestProbeHostsRefused: the kubelet dials a probe's or lifecycle hook's
// host from the machine's network, so a host there (the machine's own
// loopback, the metadata IP, beta's pod) is an address the cluster dials.
// Pod Security baseline (every tenant's level unless the platform gives a
// tenant privileged) refuses any host there at v1.34; the test holds that
// on the four ways, since the translator has no check of its own for it.
func TestProbeHostsRefused(t *testing.T) {
	betaIP := betaPodIP(t, "probes")
	_, ways := addressAttackers(t, "probes")
	before := withoutAcme(netState(t))
	pod := func(ns, handler string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: probe, namespace: " + ns + "}\n" +
			"spec: {containers: [{name: c, image: nginx, " + handler + "}]}\n"
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			for _, handler := range []string{
				"livenessProbe: {httpGet: {host: 127.0.0.1, port: 10250, path: /pods}}",
				"readinessProbe: {tcpSocket: {host: 169.254.169.254, port: 80}}",
				"startupProbe: {httpGet: {host: '" + betaIP + "', port: 80}}",
				"lifecycle: {postStart: {httpGet: {host: kubernetes.default.svc, port: 443}}}",
			} {
				res := w.run(t, pod(w.ns, handler), "create", "-f", "-")
				require.Error(t, res.Err, "%s accepted", handler)
				assert.Contains(t, res.Stderr, `violates PodSecurity "baseline:latest": probe or lifecycle host`, handler)
			}
		})
	}
	assert.Equal(t, before, withoutAcme(netState(t)), "nothing of beta's or the platform's changed")
}

// zooPolicySet runs `kubectl zoo policy set acme args...` as the platform's
// admin (also in a cleanup, when the test's context is done).
func zooPolicySet(t *testing.T, args ...string) {
	t.Helper()
	res := framework.Run(context.Background(), nil, framework.ZooPath(t),
		append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "policy", "set", "acme"}, args...)...)
	require.NoError(t, res.Err, "policy set %v: %s", args, res.Stderr)
}

// TestExternalNamesOfThePolicy: the names outside the cluster that the
// platform allows acme (`policy set --external-names`, a name or "*." for
// one label) work on the four ways; a deeper name, the parent, a name
// that merely ends like an allowed one and a literal wildcard stay refused;
// once the policy allows none again, an allowed name is refused again.
func TestExternalNamesOfThePolicy(t *testing.T) {
	_, ways := addressAttackers(t, "extpol")
	before := withoutAcme(netState(t))
	zooPolicySet(t, "--external-names", "*.example.com,api.partner.io")
	t.Cleanup(func() { zooPolicySet(t, "--external-names", "") })
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			for i, name := range []string{"www.example.com", "api.partner.io."} {
				svc := "allowed-" + string(rune('a'+i))
				res := w.run(t, externalNameService(w.ns, svc, name), "create", "-f", "-")
				require.NoError(t, res.Err, "%s: %s", name, res.Stderr)
				assert.Equal(t, name, admin(t, "-n", "acme-extpol", "get", "svc", svc, "-o", "jsonpath={.spec.externalName}"), "stored as written")
				w.run(t, "", "-n", w.ns, "delete", "svc", svc)
			}
			for i, name := range []string{"a.b.example.com", "example.com", "api.partner.io.evil.com", "x.api.partner.io", "127.0.0.1"} {
				res := w.run(t, externalNameService(w.ns, "refused-"+string(rune('a'+i)), name), "create", "-f", "-")
				t.Logf("%s: stopped by %s", name, addrRefusedBy(t, res, w.stopper, "spec.externalName", ""))
			}
		})
	}
	zooPolicySet(t, "--external-names", "")
	for _, w := range ways {
		t.Run(w.name+": allowed no more", func(t *testing.T) {
			var res framework.Result
			require.Eventually(t, func() bool { // RBAC drops a revoked grant asynchronously
				res = w.run(t, externalNameService(w.ns, "revoked", "www.example.com"), "create", "-f", "-")
				if res.Err == nil {
					w.run(t, "", "-n", w.ns, "delete", "svc", "revoked")
				}
				return res.Err != nil
			}, 30*time.Second, 250*time.Millisecond)
			addrRefusedBy(t, res, w.stopper, "spec.externalName", "")
		})
	}
	assert.Equal(t, before, withoutAcme(netState(t)), "nothing of beta's or the platform's changed")
}
