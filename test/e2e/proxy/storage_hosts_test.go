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

// Storage the machines mount at an address or by an identifier the tenant
// names, and host names of the shared ingress controllers: refused unless
// acme's policy allows them (translate/volume_sources.go, refs_ingress.go).

// allowStaticVolumes lets the tenants' PersistentVolumes name a CSI
// driver's volume by its handle (policy set --volume-sources csi), as a
// platform does that lets tenants make static volumes, until the test ends.
func allowStaticVolumes(t *testing.T, tenants ...string) {
	t.Helper()
	for _, tenant := range tenants {
		set := func(v string) {
			res := framework.Run(context.Background(), nil, framework.ZooPath(t),
				"--kubeconfig", framework.Cluster().Kubeconfig, "policy", "set", tenant, "--volume-sources", v)
			require.NoError(t, res.Err, "policy set %s --volume-sources %q: %s", tenant, v, res.Stderr)
		}
		set("csi")
		t.Cleanup(func() { set("") })
	}
}

// byIngressPolicy is the upstream refusal of a host the tenant's policy
// does not allow.
const byIngressPolicy = "ValidatingAdmissionPolicy 'zoo-tenant-ingress-hosts'"

// withVolume is a Deployment of ns whose pod template has the volume
// (a flow-style YAML mapping after "name: v, ").
func withVolume(ns, name, volume string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
		"spec:\n  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n" +
		"    spec:\n      containers: [{name: c, image: registry.k8s.io/pause:3.10}]\n      volumes: [{name: v, " + volume + "}]\n"
}

// staticVolume is a PersistentVolume with the source (flow-style mapping),
// as w writes it: directly upstream in acme's prefix, labeled and of a class
// of acme's, as zoo-tenant and zoo-tenant-storage require.
func staticVolume(w attacker, name, source string) string {
	meta, class := "{name: "+name+"}", ""
	if w.stopper == byPolicy {
		meta, class = "{name: acme-"+name+", labels: {zoo.kubectl-zoo.io/tenant: acme}}", "storageClassName: acme-manual, "
	}
	return "apiVersion: v1\nkind: PersistentVolume\nmetadata: " + meta + "\n" +
		"spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], " + class + source + "}\n"
}

// volumeName is the name w deletes a staticVolume by.
func volumeName(w attacker, name string) string {
	if w.stopper == byPolicy {
		return "acme-" + name
	}
	return name
}

// ingressOf is an Ingress of ns; spec is a flow-style mapping's content.
func ingressOf(ns, name, spec string) string {
	return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {" + spec + "}\n"
}

// hostRule is an Ingress rule for host ("" for every host).
func hostRule(host string) string {
	h := ""
	if host != "" {
		h = "host: " + host + ", "
	}
	return "{" + h + "http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}"
}

// TestVolumeSourcesOfThePolicy: attack 1, a pod template mounting another
// tenant's NFS export, an iSCSI target and a repository at the metadata
// address; attack 2, a static volume naming another tenant's CSI volume by
// its handle, or a cloud disk. Refused on the four ways (volumes: three,
// a ServiceAccount may not write cluster-scoped objects at all). Allowed
// once the policy lists the source, refused again once it does not.
func TestVolumeSourcesOfThePolicy(t *testing.T) {
	_, ways := addressAttackers(t, "storage")
	before := withoutAcme(othersState(t))
	sources := map[string]string{
		"spec.template.spec.volumes[].nfs":     "nfs: {server: 10.0.0.5, path: /exports/beta}",
		"spec.template.spec.volumes[].iscsi":   "iscsi: {targetPortal: '10.0.0.6:3260', iqn: 'iqn.2001-04.com.beta:disk', lun: 0}",
		"spec.template.spec.volumes[].gitRepo": "gitRepo: {repository: 'http://169.254.169.254/latest/'}",
	}
	volumes := map[string]string{
		"spec.csi":                  "csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0beta}",
		"spec.awsElasticBlockStore": "awsElasticBlockStore: {volumeID: vol-0beta}",
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			i := 0
			for field, src := range sources {
				i++
				res := w.run(t, withVolume(w.ns, "mount-"+string(rune('a'+i)), src), "create", "-f", "-")
				t.Logf("%s: stopped by %s", field, addrRefusedBy(t, res, w.stopper, "volume source "+field[strings.LastIndex(field, ".")+1:], ""))
			}
			if w.name == "ServiceAccount token" {
				res := w.run(t, staticVolume(w, "stolen", volumes["spec.csi"]), "create", "-f", "-")
				require.Error(t, res.Err)
				assert.Contains(t, res.Stderr, "cannot create resource \"persistentvolumes\"", "RBAC: a ServiceAccount writes no cluster-scoped object")
				return
			}
			for field, src := range volumes {
				res := w.run(t, staticVolume(w, "stolen", src), "create", "-f", "-")
				t.Logf("%s: stopped by %s", field, addrRefusedBy(t, res, w.stopper, "volume source "+strings.TrimPrefix(field, "spec."), ""))
			}
		})
	}
	zooPolicySet(t, "--volume-sources", "nfs,csi,azureFile")
	t.Cleanup(func() { zooPolicySet(t, "--volume-sources", "") })
	for _, w := range ways {
		t.Run(w.name+": allowed", func(t *testing.T) {
			res := w.run(t, withVolume(w.ns, "nfs-ok", sources["spec.template.spec.volumes[].nfs"]), "create", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			w.run(t, "", "-n", w.ns, "delete", "deployment", "nfs-ok")
			res = w.run(t, withVolume(w.ns, "iscsi-no", sources["spec.template.spec.volumes[].iscsi"]), "create", "-f", "-")
			addrRefusedBy(t, res, w.stopper, "volume source iscsi", "")
			if w.name == "ServiceAccount token" {
				return
			}
			name := "own-" + strings.ReplaceAll(w.name, " ", "-")
			res = w.run(t, staticVolume(w, name, volumes["spec.csi"]), "create", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			w.run(t, "", "delete", "pv", volumeName(w, name))
			// Without secretNamespace (the pods' own namespace): the field
			// reaches admission as null.
			res = w.run(t, staticVolume(w, name+"-af", "azureFile: {secretName: s, shareName: mine}"), "create", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			w.run(t, "", "delete", "pv", volumeName(w, name+"-af"))
		})
	}
	zooPolicySet(t, "--volume-sources", "")
	for _, w := range ways {
		t.Run(w.name+": allowed no more", func(t *testing.T) {
			var res framework.Result
			require.Eventually(t, func() bool { // RBAC drops a revoked grant asynchronously
				res = w.run(t, withVolume(w.ns, "revoked", sources["spec.template.spec.volumes[].nfs"]), "create", "-f", "-")
				if res.Err == nil {
					w.run(t, "", "-n", w.ns, "delete", "deployment", "revoked")
				}
				return res.Err != nil
			}, 30*time.Second, 250*time.Millisecond)
			addrRefusedBy(t, res, w.stopper, "volume source nfs", "")
		})
	}
	// Whoever makes a pod in acme's namespaces (a workload controller, an
	// operator of the platform's acting on acme's custom resource, here the
	// platform's admin), zoo-tenant-storage holds acme's policy.
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: operator-made, namespace: acme-storage}\n" +
		"spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}], volumes: [{name: v, " + sources["spec.template.spec.volumes[].nfs"] + "}]}\n"
	res := framework.Run(t.Context(), []byte(pod), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "create", "-f", "-")
	require.Error(t, res.Err, "a pod with acme's refused source was made in acme's namespace")
	assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-storage'")
	assert.Contains(t, res.Stderr, "volume source nfs")
	assert.Equal(t, before, withoutAcme(othersState(t)), "nothing of beta's or the platform's changed")
}

// TestIngressHostsOfThePolicy: attack 1, an Ingress claiming beta's host (in
// a rule, in its TLS hosts, and by a patch of an allowed Ingress); attack
// 2, an Ingress for every host (a rule without host, a default backend).
// Refused on the four ways, upstream by zoo-tenant-ingress-hosts, which reads
// the hosts of acme's policy from the namespace's policy ResourceQuota.
// The hosts the policy allows work; a JSON patch removing a host (a rule
// for every host) is refused too.
func TestIngressHostsOfThePolicy(t *testing.T) {
	acme, ways := addressAttackers(t, "hosts")
	zooPolicySet(t, "--ingress-hosts", "*.acme.example.com,shop.acme.io")
	t.Cleanup(func() { zooPolicySet(t, "--ingress-hosts", "") })
	before := withoutAcme(othersState(t))
	stopper := func(w attacker) string {
		if w.stopper == byProxy {
			return byProxy
		}
		return byIngressPolicy
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			for name, spec := range map[string]string{
				"beta":      "rules: [" + hostRule("shop.acme.io") + ", " + hostRule("shop.beta.io") + "]",
				"deeper":    "rules: [" + hostRule("a.b.acme.example.com") + "]",
				"tls":       "rules: [" + hostRule("shop.acme.io") + "], tls: [{hosts: [shop.beta.io], secretName: t}]",
				"every":     "rules: [" + hostRule("") + "]",
				"default":   "defaultBackend: {service: {name: web, port: {number: 80}}}",
				"tls-every": "rules: [" + hostRule("shop.acme.io") + "], tls: [{secretName: t}]",
			} {
				res := w.run(t, ingressOf(w.ns, name, spec), "create", "-f", "-")
				require.Error(t, res.Err, "%s accepted", name)
				assert.Contains(t, res.Stderr, stopper(w), name)
				assert.Contains(t, res.Stderr, "--ingress-hosts", name)
			}
			var res framework.Result
			require.Eventually(t, func() bool { // the API server's informer of the policy quotas catches up with policy set
				res = w.run(t, ingressOf(w.ns, "ok", "rules: ["+hostRule("web.acme.example.com")+", "+hostRule("shop.acme.io")+"], "+
					"tls: [{hosts: [web.acme.example.com], secretName: t}]"), "create", "-f", "-")
				return res.Err == nil
			}, 10*time.Second, 200*time.Millisecond, "the allowed hosts: %s", res.Stderr)
			for _, patch := range [][]string{
				{"--type=merge", "-p", `{"spec":{"rules":[{"host":"shop.beta.io","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`},
				{"--type=json", "-p", `[{"op":"replace","path":"/spec/rules/0/host","value":"www.beta.io"}]`},
				{"--type=json", "-p", `[{"op":"add","path":"/spec/tls/0/hosts/-","value":"shop.beta.io"}]`},
			} {
				res := w.run(t, "", append([]string{"-n", w.ns, "patch", "ingress", "ok"}, patch...)...)
				require.Error(t, res.Err, "%v accepted", patch)
				assert.Contains(t, res.Stderr, stopper(w), "%v", patch)
			}
			// Removing a host leaves a rule for every host: the proxy judges
			// the patched object (patch_view.go), the upstream the result.
			res = w.run(t, "", "-n", w.ns, "patch", "ingress", "ok", "--type=json", "-p", `[{"op":"remove","path":"/spec/rules/1/host"}]`)
			require.Error(t, res.Err, "a rule for every host accepted")
			assert.Contains(t, res.Stderr, stopper(w))
			w.run(t, "", "-n", w.ns, "delete", "ingress", "ok")
		})
	}
	assert.Equal(t, "*.acme.example.com,shop.acme.io", admin(t, "-n", "acme-hosts", "get", "resourcequota", "zoo-policy",
		"-o", `jsonpath={.metadata.annotations.zoo\.kubectl-zoo\.io/ingress-hosts}`), "the namespace's policy quota carries the hosts")
	res := acme.run(t, "", "-n", "hosts", "annotate", "resourcequota", "zoo-policy", "zoo.kubectl-zoo.io/ingress-hosts=*", "--overwrite")
	require.Error(t, res.Err, "the tenant rewrote its allowed hosts")
	res = framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig},
		append(tenantIdentity, "-n", "acme-hosts", "annotate", "resourcequota", "zoo-policy", "zoo.kubectl-zoo.io/ingress-hosts=*", "--overwrite")...)...)
	require.Error(t, res.Err, "the tenant identity rewrote its allowed hosts upstream")
	assert.Equal(t, before, withoutAcme(othersState(t)), "nothing of beta's or the platform's changed")
}
