package proxy_test

import (
	"bytes"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Issue 11, class 1: nothing a tenant sends reaches the upstream unless the
// translator produced it. Each probe goes through `kubectl zoo serve`
// (acme) against the real kube-apiserver and, where the same request makes
// sense for the tenant identity used directly upstream, also that way. Each
// names the layer that stopped it; afterwards nothing of tenant beta or of
// the platform has changed.

// tenantUpstreamClient is a raw HTTP/1.1 client for the upstream as the
// identity of acme's admin (the admin kubeconfig impersonating it).
func tenantUpstreamClient(t *testing.T) (*http.Client, string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "zoo:acme:admin", Groups: []string{"zoo:tenant:acme", "zoo:admins"}}
	cfg.NextProtos = []string{"http/1.1"}
	c, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	return c, cfg.Host
}

// othersState is everything upstream that is not acme's: every namespaced
// ConfigMap, Secret and RoleBinding outside acme-* with its
// resourceVersion, and the names of namespaces, ClusterRoles and
// ClusterRoleBindings. Namespaces that an earlier test's cleanup is
// deleting (deletionTimestamp set) are left out with their contents: they
// vanish while a later test runs, which no attack of that test did.
func othersState(t *testing.T) string {
	t.Helper()
	var keep []string
	terminating := terminatingNamespaces(t)
	rows := admin(t, "get", "cm,secrets,rolebindings", "-A", "-o",
		"custom-columns=NS:.metadata.namespace,KIND:.kind,NAME:.metadata.name,RV:.metadata.resourceVersion", "--no-headers") +
		admin(t, "get", "ns,clusterroles,clusterrolebindings", "-o", "name")
	for _, line := range strings.Split(rows, "\n") {
		if strings.HasPrefix(line, "acme-") || strings.Contains(line, "/acme-") || strings.HasPrefix(line, "kube-node-lease ") {
			continue
		}
		ns, _, _ := strings.Cut(line, " ")
		if terminating[ns] || terminating[strings.TrimPrefix(line, "namespace/")] {
			continue
		}
		keep = append(keep, line)
	}
	sort.Strings(keep)
	return strings.Join(keep, "\n")
}

// terminatingNamespaces are the namespaces being deleted.
func terminatingNamespaces(t *testing.T) map[string]bool {
	t.Helper()
	terminating := map[string]bool{}
	for _, ns := range strings.Fields(admin(t, "get", "ns", "-o", `jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name}{" "}{end}`)) {
		terminating[ns] = true
	}
	return terminating
}

// pbConfigMap is a protobuf ConfigMap in ns followed by a second raw object
// in evilNS: protobuf keeps the last of a repeated field.
func pbConfigMap(t *testing.T, name, ns, evilNS string) string {
	t.Helper()
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	var buf bytes.Buffer
	require.NoError(t, protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(cm, &buf))
	evil := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: evilNS}, Data: map[string]string{"smuggled": "yes"}}
	raw, err := evil.Marshal()
	require.NoError(t, err)
	b := protowire.AppendTag(buf.Bytes(), 2, protowire.BytesType)
	return string(protowire.AppendBytes(b, raw))
}

type probe struct {
	name, method, path string
	header             map[string]string
	body               string
	// ok checks the answer through the proxy; nil: a clean 4xx Status.
	ok func(t *testing.T, code int, body string)
	// direct is the path of the same probe sent as the tenant identity
	// directly upstream ("" to skip); it must be refused or harmless.
	direct string
}

func refused(t *testing.T, code int, body string) {
	t.Helper()
	assert.True(t, code >= 400 && code < 500, "%d %s", code, body)
	assert.Contains(t, body, `"kind":"Status"`)
}

// TestNothingUntranslatedReachesTheUpstream runs the probes of each hole.
func TestNothingUntranslatedReachesTheUpstream(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	beta.k(t, "create", "namespace", "strongroom")
	t.Cleanup(func() { beta.run(t, "", "delete", "namespace", "strongroom", "--wait=false") })
	beta.k(t, "-n", "strongroom", "create", "secret", "generic", "gold", "--from-literal=key=beta-only")
	acme.k(t, "create", "namespace", "strongroom")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "strongroom", "--wait=false") })
	acme.apply(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: strongroom
  annotations: {who: "zoo:beta:admin", role: cluster-admin, ns: beta-strongroom}
data: {x: beta-strongroom}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rb
  namespace: strongroom
  annotations: {who: "zoo:beta:admin", ns: beta-strongroom}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}
- {kind: ServiceAccount, name: default, namespace: strongroom}
`)
	before := othersState(t)
	c, host := rawClient(t, acme)
	up, upHost := tenantUpstreamClient(t)
	upgrade := map[string]string{"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io"}
	cmEvil := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"evil","namespace":"beta-strongroom"},"data":{"smuggled":"yes"}}`
	jsonPatch := map[string]string{"Content-Type": "application/json-patch+json"}

	probes := []probe{
		// 1. Upgrade headers on requests the API server does not upgrade.
		{name: "upgrade on a create/refused by the proxy (400)", method: "POST", path: "/api/v1/namespaces/strongroom/configmaps", header: upgrade, body: cmEvil,
			direct: "/api/v1/namespaces/beta-strongroom/configmaps"},
		{name: "upgrade on a patch/refused by the proxy (400)", method: "PATCH", path: "/api/v1/namespaces/strongroom/configmaps/cfg",
			header: map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Content-Type": "application/merge-patch+json"},
			body:   `{"metadata":{"namespace":"beta-strongroom"}}`, direct: "/api/v1/namespaces/beta-strongroom/configmaps/gold"},
		{name: "upgrade on a list/refused by the proxy (400)", method: "GET", path: "/api/v1/namespaces/strongroom/secrets", header: upgrade},

		// 2. Repeated fields: translated as the API server reads them.
		{name: "JSON with a repeated namespace key/translated as the last, refused by the upstream", method: "POST", path: "/api/v1/namespaces/strongroom/configmaps",
			body:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"evil","namespace":"strongroom","namespace":"beta-strongroom"}}`,
			direct: "/api/v1/namespaces/acme-strongroom/configmaps"},
		{name: "protobuf with a second raw object/decoded by the proxy, refused by the upstream", method: "POST", path: "/api/v1/namespaces/strongroom/configmaps",
			header: map[string]string{"Content-Type": "application/vnd.kubernetes.protobuf"}, body: pbConfigMap(t, "evil", "strongroom", "beta-strongroom"),
			direct: "/api/v1/namespaces/acme-strongroom/configmaps"},

		// 3. Patches: applied in the tenant's view, a translated merge patch upstream.
		{name: "json patch moving a value into metadata.namespace/translated by the proxy, refused by the upstream", method: "PATCH",
			path: "/api/v1/namespaces/strongroom/configmaps/cfg", header: jsonPatch, body: `[{"op":"copy","from":"/data/x","path":"/metadata/namespace"}]`},
		{name: "json patch copying into a RoleBinding subject/translated by the proxy", method: "PATCH",
			path: "/apis/rbac.authorization.k8s.io/v1/namespaces/strongroom/rolebindings/rb", header: jsonPatch,
			body: `[{"op":"copy","from":"/metadata/annotations/who","path":"/subjects/0/name"},{"op":"copy","from":"/metadata/annotations/ns","path":"/subjects/1/namespace"}]`,
			ok: func(t *testing.T, code int, body string) {
				if code/100 == 2 {
					got := admin(t, "-n", "acme-strongroom", "get", "rolebinding", "rb", "-o", "jsonpath={.subjects[*].name} {.subjects[*].namespace}")
					assert.NotContains(t, got, " zoo:beta:admin")
					assert.NotRegexp(t, `(^| )beta-strongroom`, got)
				}
			}, direct: "/apis/rbac.authorization.k8s.io/v1/namespaces/acme-strongroom/rolebindings/rb"},
		{name: "merge patch of an owner reference to cluster-admin/translated by the proxy", method: "PATCH",
			path: "/api/v1/namespaces/strongroom/configmaps/cfg?dryRun=All", header: map[string]string{"Content-Type": "application/merge-patch+json"},
			body: `{"metadata":{"ownerReferences":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","name":"cluster-admin","uid":"00000000-0000-0000-0000-000000000001"}]}}`,
			ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				// Upstream it named acme-cluster-admin: only a name of acme's
				// reads back as "cluster-admin" (others are dropped).
				assert.Contains(t, body, `"kind":"ClusterRole","name":"cluster-admin"`)
			}},
		{name: "server-side apply of an owner reference without its kind/refused by the proxy (403)", method: "PATCH",
			path:   "/api/v1/namespaces/strongroom/configmaps/cfg?fieldManager=probe&force=true",
			header: map[string]string{"Content-Type": "application/apply-patch+yaml"},
			body:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  ownerReferences:\n  - uid: 00000000-0000-0000-0000-000000000001\n    name: cluster-admin\n"},

		// 4. Watches and repeated query parameters, as the API server reads them.
		{name: "watch=yes is a watch/translated by the proxy", method: "GET", path: "/api/v1/namespaces/strongroom/configmaps?watch=yes&timeoutSeconds=1",
			ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				assert.Contains(t, body, `"type":"ADDED"`)
				assert.Contains(t, body, `"namespace":"strongroom"`)
				assert.NotContains(t, body, "acme-strongroom")
			}, direct: "/api/v1/namespaces/beta-strongroom/secrets?watch=yes&timeoutSeconds=1"},
		{name: "watch=True on all namespaces is a watch/translated by the proxy", method: "GET", path: "/api/v1/configmaps?watch=True&timeoutSeconds=1&fieldSelector=metadata.name%3Dcfg",
			ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				assert.Contains(t, body, `"type":"ADDED"`)
				assert.NotContains(t, body, "acme-strongroom")
			}},
		{name: "a repeated field selector/only the first, translated, is forwarded", method: "GET",
			path: "/api/v1/secrets?fieldSelector=metadata.namespace%3Dstrongroom&fieldSelector=metadata.namespace%3Dbeta-strongroom",
			ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				assert.NotContains(t, body, "gold")
			}},
		{name: "watch=false then true is a list as upstream/translated by the proxy", method: "GET", path: "/api/v1/namespaces/strongroom/configmaps?watch=false&watch=true",
			ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				assert.Contains(t, body, `"kind":"ConfigMapList"`)
				assert.NotContains(t, body, "acme-strongroom")
			}},

		// 5. Other paths around the translator.
		{name: "dot segments into another namespace/refused by the proxy (400)", method: "GET",
			path: "/api/v1/namespaces/strongroom/configmaps/..%2F..%2Fbeta-strongroom%2Fsecrets%2Fgold", direct: "/api/v1/namespaces/acme-strongroom/configmaps/../../beta-strongroom/secrets/gold"},
		{name: "the deprecated proxy verb/refused by the proxy (403)", method: "GET", path: "/api/v1/proxy/namespaces/strongroom/pods/p"},
		{name: "service proxy/refused by the proxy (403)", method: "GET", path: "/api/v1/namespaces/strongroom/services/https:kubernetes:443/proxy/"},
		{name: "pod proxy/refused by the proxy (403)", method: "GET", path: "/api/v1/namespaces/strongroom/pods/p:80/proxy/x"},
		{name: "create on the all-namespaces path/refused by the proxy (405)", method: "POST", path: "/api/v1/configmaps",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"everywhere"}}`, direct: "/api/v1/configmaps"},
		{name: "OPTIONS/refused by the proxy (405)", method: "OPTIONS", path: "/api/v1/namespaces/strongroom/configmaps"},
		{name: "gzip body/refused by the proxy (415)", method: "POST", path: "/api/v1/namespaces/strongroom/configmaps",
			header: map[string]string{"Content-Encoding": "gzip"}, body: cmEvil},
		{name: "X-HTTP-Method-Override/not forwarded by the proxy", method: "GET", path: "/api/v1/namespaces/strongroom/configmaps/cfg",
			header: map[string]string{"X-HTTP-Method-Override": "DELETE"}, ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				acme.k(t, "-n", "strongroom", "get", "cm", "cfg")
			}},
		{name: "a delete whose body is an object/refused by the proxy (400)", method: "DELETE", path: "/api/v1/namespaces/strongroom/configmaps/cfg", body: cmEvil},
		{name: "a delete whose DeleteOptions carry more/reduced to DeleteOptions by the proxy", method: "DELETE", path: "/api/v1/namespaces/strongroom/configmaps/cfg",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"metadata":{"namespace":"beta-strongroom"},"data":{"smuggled":"yes"}}`,
			ok: func(t *testing.T, code int, body string) {
				require.Equal(t, 200, code, body)
				acme.k(t, "-n", "strongroom", "get", "cm", "cfg") // a dry run: still there
			}},
	}
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			code, body := do(t, c, p.method, host+p.path, p.header, p.body)
			t.Logf("through the proxy: %d %s", code, strings.TrimSpace(body[:min(len(body), 200)]))
			assert.NotContains(t, body, "beta-only")
			if p.ok != nil {
				p.ok(t, code, body)
			} else {
				refused(t, code, body)
			}
			if p.direct == "" {
				return
			}
			code, body = do(t, up, p.method, upHost+p.direct, p.header, p.body)
			assert.NotContains(t, body, "beta-only")
			assert.False(t, code/100 == 2 && strings.Contains(body, "smuggled"), "the upstream stored a smuggled object: %d %s", code, body)
			t.Logf("directly upstream as zoo:acme:admin: %d %s", code, strings.TrimSpace(body[:min(len(body), 200)]))
		})
	}
	assert.Equal(t, before, othersState(t), "the probes changed what is not acme's")
	assert.Equal(t, "beta-only", decodeB64(t, beta.k(t, "-n", "strongroom", "get", "secret", "gold", "-o", "jsonpath={.data.key}")))
	assert.Empty(t, admin(t, "get", "cm", "-A", "-l", "!nothing", "-o", "jsonpath={.items[?(@.data.smuggled)].metadata.name}"), "no smuggled ConfigMap anywhere")
}
