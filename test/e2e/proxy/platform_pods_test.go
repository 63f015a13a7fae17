package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Keys in the platform's domains on pods and pod templates (issue 24,
// class 4): a network plugin's fixed address or extra network, a mesh's
// opt-out, an autoscaler's hold on the platform's nodes. A controller copies
// a template's keys to every pod it makes, so a template is judged as a pod.

// podKeyAttacks are acme's writes of such keys in its namespace %[1]s; each
// names the key its refusal must name.
var podKeyAttacks = []struct {
	name, key, stdin string
	args             []string
}{
	{name: "a pod with Calico's fixed address", key: "cni.projectcalico.org/ipAddrs",
		stdin: podYAML("fixed", `annotations: {cni.projectcalico.org/ipAddrs: '["10.0.0.7"]'}`), args: []string{"create", "-f", "-"}},
	{name: "a pod on the platform's network", key: "k8s.v1.cni.cncf.io/networks",
		stdin: podYAML("multus", `annotations: {k8s.v1.cni.cncf.io/networks: kube-system/infra}`), args: []string{"create", "-f", "-"}},
	{name: "label the pod out of the mesh", key: "sidecar.istio.io/inject",
		args: []string{"-n", "%[1]s", "label", "pod", "web", "sidecar.istio.io/inject=false"}},
	{name: "merge patch the pod's hold on its node", key: "karpenter.sh/do-not-disrupt",
		args: []string{"-n", "%[1]s", "patch", "pod", "web", "--type=merge", `-p={"metadata":{"annotations":{"karpenter.sh/do-not-disrupt":"true"}}}`}},
	{name: "a Deployment whose pods join the platform's network", key: "k8s.v1.cni.cncf.io/networks",
		stdin: deploymentYAML("multus", `, annotations: {k8s.v1.cni.cncf.io/networks: kube-system/infra}`), args: []string{"create", "-f", "-"}},
	{name: "strategic patch of a template out of the mesh", key: "sidecar.istio.io/inject",
		args: []string{"-n", "%[1]s", "patch", "deployment", "app", "--type=strategic",
			`-p={"spec":{"template":{"metadata":{"labels":{"sidecar.istio.io/inject":"false"}}}}}`}},
	{name: "json patch of a template's fixed address", key: "cni.projectcalico.org/ipAddrs",
		args: []string{"-n", "%[1]s", "patch", "deployment", "app", "--type=json",
			`-p=[{"op":"add","path":"/spec/template/metadata/annotations","value":{"cni.projectcalico.org/ipAddrs":"[\"10.0.0.7\"]"}}]`}},
	{name: "a CronJob whose jobs' pods hold the platform's nodes", key: "cluster-autoscaler.kubernetes.io/safe-to-evict",
		stdin: "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: hold, namespace: %[1]s}\nspec:\n  schedule: '0 0 1 1 *'\n  jobTemplate:\n    spec:\n      template:\n" +
			"        metadata: {annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: 'false'}}\n" +
			"        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n",
		args: []string{"create", "-f", "-"}},
}

func podYAML(name, meta string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: %[1]s, " + meta + "}\nspec: {containers: [{name: c, image: busybox}]}\n"
}

func deploymentYAML(name, tplMeta string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: %[1]s}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: " + name + "}}\n" +
		"  template:\n    metadata: {labels: {app: " + name + "}" + tplMeta + "}\n    spec: {containers: [{name: c, image: busybox}]}\n"
}

// TestPlatformDomainsOnPods: acme writes keys of the platform's domains on
// its pods and the templates of its workloads through its proxy, through
// the server, as its admin directly upstream and with a pod's
// ServiceAccount token; each is refused, by the proxy or by
// zoo-tenant-metadata, and nothing of beta's or the platform's changes.
// What tenants' tools write stays theirs: kubectl's default container, a
// rollout restart, the labels the API server writes into a Job's template,
// an update that keeps a template's key the platform set.
func TestPlatformDomainsOnPods(t *testing.T) {
	_, attackers := addressAttackers(t, "podkeys") // address_test.go
	before := betaAndPlatform(t)
	for _, a := range attackers {
		stopper := byProxyMetadata
		if a.stopper == byPolicy {
			stopper = byUpstreamMetadata
		}
		sub := strings.NewReplacer("%[1]s", a.ns)
		setup := sub.Replace(podYAML("web", `labels: {app: web}, annotations: {kubectl.kubernetes.io/default-container: c}`) + "---\n" +
			deploymentYAML("app", `, annotations: {kubectl.kubernetes.io/restartedAt: "2026-11-28T00:00:00Z"}`) + "---\n" +
			"apiVersion: batch/v1\nkind: Job\nmetadata: {name: once, namespace: %[1]s}\nspec:\n  suspend: true\n  template:\n" +
			"    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n")
		t.Run(a.name+"/what tenants' tools write", func(t *testing.T) {
			res := a.run(t, setup, "apply", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			res = a.run(t, "", "-n", a.ns, "rollout", "restart", "deployment", "app")
			require.NoError(t, res.Err, res.Stderr)
			res = a.run(t, "", "-n", a.ns, "label", "job", "once", "team=a", "--overwrite")
			require.NoError(t, res.Err, "the labels the Job strategy wrote into the template stay: %s", res.Stderr)
		})
		for _, at := range podKeyAttacks {
			t.Run(a.name+"/"+at.name, func(t *testing.T) {
				args := make([]string, len(at.args))
				for i, s := range at.args {
					args[i] = sub.Replace(s)
				}
				res := a.run(t, sub.Replace(at.stdin), args...)
				require.Error(t, res.Err, "accepted: %s", res.Stdout)
				assert.Contains(t, res.Stderr, stopper, "the expected layer stops it")
				assert.Contains(t, res.Stderr, at.key)
			})
		}
		res := a.run(t, "", "-n", a.ns, "delete", "pod,deployment,job", "--all", "--wait=false")
		require.NoError(t, res.Err, res.Stderr)
	}
	assert.Equal(t, before, betaAndPlatform(t), "nothing of beta or the platform changed")
	assert.NotContains(t, admin(t, "get", "pods,deployments,cronjobs", "-n", "acme-podkeys", "-o", "yaml"), "cni.", "no pod or template of acme's holds such a key")
}

// TestPlatformTemplateKeyKept: a template key the platform set (here its
// admin, as a platform's webhook or operator would) stays on every update
// of acme's that keeps it, through the proxy and directly upstream; acme
// may not change it, and may drop it (its pods then lack it, as a pod of its
// own may).
func TestPlatformTemplateKeyKept(t *testing.T) {
	_, attackers := addressAttackers(t, "tplkept") // address_test.go
	for _, a := range attackers {
		t.Run(a.name, func(t *testing.T) {
			name := "meshed-" + strings.ToLower(strings.ReplaceAll(a.name, " ", "-"))
			manifest := strings.NewReplacer("%[1]s", "acme-tplkept").Replace(deploymentYAML(name, `, annotations: {sidecar.istio.io/inject: "true"}`))
			res := framework.Run(t.Context(), []byte(manifest), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "create", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			for _, args := range [][]string{
				{"label", "deployment", name, "team=a", "--overwrite"},
				{"set", "env", "deployment/" + name, "MODE=blue"},
				{"rollout", "restart", "deployment", name},
			} {
				res := a.run(t, "", append([]string{"-n", a.ns}, args...)...)
				require.NoError(t, res.Err, "%v keeps the template's key: %s", args, res.Stderr)
			}
			res = a.run(t, "", "-n", a.ns, "patch", "deployment", name, "--type=merge",
				`-p={"spec":{"template":{"metadata":{"annotations":{"sidecar.istio.io/inject":"false"}}}}}`)
			require.Error(t, res.Err, "changed the platform's template key: %s", res.Stdout)
			assert.Contains(t, res.Stderr, "sidecar.istio.io/inject")
			assert.Equal(t, "true", admin(t, "-n", "acme-tplkept", "get", "deployment", name, "-o", `jsonpath={.spec.template.metadata.annotations.sidecar\.istio\.io/inject}`))
			res = a.run(t, "", "-n", a.ns, "patch", "deployment", name, "--type=json",
				`-p=[{"op":"remove","path":"/spec/template/metadata/annotations/sidecar.istio.io~1inject"}]`)
			require.NoError(t, res.Err, "dropping it makes pods without it: %s", res.Stderr)
		})
	}
}

// zooInstall runs kubectl zoo install on the upstream.
func zooInstall(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return framework.Run(context.Background(), nil, framework.ZooPath(t),
		append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "install"}, args...)...)
}

// TestWebhookKeysOfThePlatform: zoo-tenant-metadata sees a pod after the
// platform's own mutating webhooks, so `install --webhook-keys` names the
// keys they add: directly upstream acme's pod may then carry them, as an
// injected pod does; through the proxy, which judges what acme sends before
// any webhook, it may not. Installing again keeps the keys; "" clears them.
func TestWebhookKeysOfThePlatform(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "hooked")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "hooked", "--wait=false") })
	up := upstreamLayer("admin-upstream", framework.Cluster().Kubeconfig, tenantIdentity)
	injected := func(name string) string {
		return podYAML(name, `annotations: {sidecar.istio.io/status: '{"containers":["istio-proxy"]}'}`)
	}
	createUp := func(t *testing.T, name string) framework.Result {
		return up.run(t, strings.NewReplacer("%[1]s", "acme-hooked").Replace(injected(name)), "create", "-f", "-")
	}

	res := createUp(t, "before")
	require.Error(t, res.Err, "no webhook key is installed: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byUpstreamMetadata)

	res = zooInstall(t, "--webhook-keys", "sidecar.istio.io/status")
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() { require.NoError(t, zooInstall(t, "--webhook-keys", "").Err) })
	for _, bad := range []struct{ keys, want string }{
		{"app", "not a platform-owned key of pods"},
		{"Bad Key/x", "is not a label or annotation key"},
	} {
		res := zooInstall(t, "--webhook-keys", bad.keys)
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, bad.want)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(res.Stderr), "\n")+1, "one line: %s", res.Stderr)
	}
	require.NoError(t, zooInstall(t).Err, "installing again keeps the keys")
	assert.Equal(t, "sidecar.istio.io/status", admin(t, "get", "validatingadmissionpolicy", "zoo-tenant-metadata",
		"-o", `jsonpath={.metadata.annotations.zoo\.kubectl-zoo\.io/webhook-keys}`))

	require.Eventually(t, func() bool { return createUp(t, "after").Err == nil }, 30*time.Second, 500*time.Millisecond,
		"the policy's new keys reach the API server")
	res = acme.run(t, strings.NewReplacer("%[1]s", "hooked").Replace(injected("proxied")), "create", "-f", "-")
	require.Error(t, res.Err, "the proxy judges what acme sends: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byProxyMetadata)
	res = up.run(t, "", "-n", "acme-hooked", "annotate", "pod", "after", "istio.io/rev=canary")
	require.Error(t, res.Err, "only the named keys: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byUpstreamMetadata)

	require.NoError(t, zooInstall(t, "--webhook-keys", "").Err)
	require.Eventually(t, func() bool {
		res := createUp(t, "cleared")
		return res.Err != nil && strings.Contains(res.Stderr, byUpstreamMetadata)
	}, 30*time.Second, 500*time.Millisecond, "cleared keys are refused again")
}
