package proxy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestPlatformDomainsAgree: for keys at the edges of the domains and the
// allow-list, the upstream policy (acme's admin directly upstream, a
// server-side dry run) refuses exactly the labels and annotations that the
// proxy's table calls platform-owned, on a namespace, a Service, a pod and a
// volume (where zoo-tenant-storage refuses the storage-class annotation on
// its own, as the proxy's kind rule does).
func TestPlatformDomainsAgree(t *testing.T) {
	acme := serve(t, "acme")
	// Before the namespace: its policy quota carries the host from the
	// start (zoo-tenant-ingress-hosts' parameter).
	zooPolicySet(t, "--ingress-hosts", "web.acme.io")
	t.Cleanup(func() { zooPolicySet(t, "--ingress-hosts", "") })
	acme.k(t, "create", "namespace", "agree")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "agree", "--wait=false") })
	acme.k(t, "-n", "agree", "create", "service", "clusterip", "web", "--tcp=80")
	acme.k(t, "-n", "agree", "run", "web", "--image=busybox")
	allowStaticVolumes(t, "acme") // storage_hosts_test.go
	acme.apply(t, proxyPV("agree-pv", domainsPVClass, ""))
	acme.apply(t, ingressOf("agree", "web", "rules: ["+hostRule("web.acme.io")+"]")) // storage_hosts_test.go
	t.Cleanup(func() { deleteVolumes(t, "acme-agree-pv") })
	up := upstreamLayer("admin-upstream", framework.Cluster().Kubeconfig, tenantIdentity)
	keys := []string{
		"openshift.io/node-selector", "a.b.openshift.io/x", "openshift.io.example.com/x", "xopenshift.io/x",
		"istio-injection", "istio.io/rev", "example.com/istio-injection", "kubernetes.io/metadata.name",
		"app.kubernetes.io/name", "x.app.kubernetes.io/name", "kubectl.kubernetes.io/last-applied-configuration",
		"kubectl.kubernetes.io/restartedAt", "service.kubernetes.io/topology-mode", "service.kubernetes.io/headless",
		"argocd.argoproj.io/instance", "argocd.argoproj.io/managed-by", "zoo.kubectl-zoo.io/anything",
		"propagate.kubectl-zoo.io/select", "k8s.io/x", "team", "helm.sh/chart", "metallb.io/loadBalancerIPs",
		"pv.kubernetes.io/provisioned-by", "topology.kubernetes.io/zone", "volume.beta.kubernetes.io/storage-class",
		"nginx.ingress.kubernetes.io/server-snippet", "nginx.ingress.kubernetes.io/rewrite-target", "kubernetes.io/ingress.class",
	}
	for _, target := range []struct {
		gr   schema.GroupResource
		args []string
	}{
		{schema.GroupResource{Resource: "namespaces"}, []string{"ns", "acme-agree"}},
		{schema.GroupResource{Resource: "services"}, []string{"-n", "acme-agree", "svc", "web"}},
		{schema.GroupResource{Resource: "pods"}, []string{"-n", "acme-agree", "pod", "web"}},
		{schema.GroupResource{Resource: "persistentvolumes"}, []string{"pv", "acme-agree-pv"}},
		{schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}, []string{"-n", "acme-agree", "ingress", "web"}},
	} {
		for _, annotation := range []bool{false, true} {
			verb := "label"
			if annotation {
				verb = "annotate"
			}
			for _, key := range keys {
				t.Run(target.gr.Resource+"/"+verb+"/"+key, func(t *testing.T) {
					args := append([]string{verb, "--dry-run=server", "--overwrite"}, target.args...)
					res := up.run(t, "", append(args, key+"=v")...)
					if annotation && target.gr.Resource == "persistentvolumes" && key == "volume.beta.kubernetes.io/storage-class" {
						require.Error(t, res.Err)
						assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-storage'")
						return
					}
					if !translate.IsPlatformOwned(target.gr, annotation, key) {
						require.NoError(t, res.Err, "the proxy lets it through, so must the upstream: %s", res.Stderr)
						return
					}
					require.Error(t, res.Err, "the proxy refuses it, so must the upstream")
					assert.Contains(t, res.Stderr, byUpstreamMetadata)
				})
			}
		}
	}
}

// domainsPVClass is the class of these tests' volumes: no claim of
// another test names it, so none binds them.
const domainsPVClass = "  storageClassName: domains-none\n"

// deleteVolumes deletes upstream volumes when a test ends (t.Context() is
// done by then).
func deleteVolumes(t *testing.T, names ...string) {
	args := append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "delete", "pv", "--ignore-not-found"}, names...)
	if res := framework.Run(context.Background(), nil, framework.KubectlPath(), args...); res.Err != nil {
		t.Logf("deleting %v: %v: %s", names, res.Err, res.Stderr)
	}
}

// TestPlatformDomainsOnVolumes (issue 24, class 4): a CSI provisioner
// deletes the backing storage of a released volume that names it in
// pv.kubernetes.io/provisioned-by, whatever volume handle the volume holds.
// acme may not write that key on its volumes, through its proxy, through the
// server, nor as its admin directly upstream (its ServiceAccounts hold no
// rights on volumes); a volume's zone stays acme's to write.
func TestPlatformDomainsOnVolumes(t *testing.T) {
	acme := serve(t, "acme")
	allowStaticVolumes(t, "acme") // storage_hosts_test.go
	acme.apply(t, proxyPV("dom-pv", domainsPVClass, "  persistentVolumeReclaimPolicy: Retain\n"))
	t.Cleanup(func() { deleteVolumes(t, "acme-dom-pv", "acme-dom-pv2") })
	lb := servers(t)
	layers := []layer{
		proxyLayer("proxy", acme),
		proxyLayer("server", viaServer(t, lb, "acme")),
		upstreamLayer("admin-upstream", framework.Cluster().Kubeconfig, tenantIdentity),
	}
	before := betaAndPlatform(t)
	for _, l := range layers {
		pv, pv2 := "dom-pv", "dom-pv2"
		labels := ""
		if l.denial == byUpstreamMetadata {
			pv, pv2, labels = "acme-dom-pv", "acme-dom-pv2", ", labels: {zoo.kubectl-zoo.io/tenant: acme}"
		}
		for _, a := range []struct {
			name, stdin string
			args        []string
		}{
			{name: "annotate a provisioner", args: []string{"annotate", "pv", pv, "pv.kubernetes.io/provisioned-by=ebs.csi.aws.com"}},
			{name: "merge patch reclaim by a provisioner", args: []string{"patch", "pv", pv, "--type=merge",
				`-p={"metadata":{"annotations":{"pv.kubernetes.io/provisioned-by":"ebs.csi.aws.com"}},"spec":{"persistentVolumeReclaimPolicy":"Delete"}}`}},
			{name: "create a volume its provisioner deletes", args: []string{"create", "-f", "-"},
				stdin: "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: " + pv2 + ", annotations: {pv.kubernetes.io/provisioned-by: ebs.csi.aws.com}" + labels + "}\n" +
					"spec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  persistentVolumeReclaimPolicy: Delete\n  storageClassName: acme-x\n  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-beta}\n"},
		} {
			t.Run(l.name+"/"+a.name, func(t *testing.T) {
				res := l.run(t, a.stdin, a.args...)
				require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
				assert.Contains(t, res.Stderr, l.denial)
				assert.Contains(t, res.Stderr, "pv.kubernetes.io/provisioned-by")
			})
		}
		t.Run(l.name+"/a volume's zone", func(t *testing.T) {
			res := l.run(t, "", "label", "pv", pv, "topology.kubernetes.io/zone="+l.name, "--overwrite")
			require.NoError(t, res.Err, res.Stderr)
		})
	}
	assert.Equal(t, before, betaAndPlatform(t), "nothing of beta or the platform changed")
	assert.NotContains(t, admin(t, "get", "pv", "-l", "zoo.kubectl-zoo.io/tenant=acme", "-o", "jsonpath={.items[*].metadata.annotations}"), "provisioned-by")
	assert.Empty(t, admin(t, "get", "pv", "acme-dom-pv2", "--ignore-not-found", "-o", "name"))
}
