package proxy_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// proxyPV is a static volume as a tenant writes it (a CSI source: tenants
// may not make hostPath or local volumes).
func proxyPV(name, classLine, extra string) string {
	return `apiVersion: v1
kind: PersistentVolume
metadata: {name: ` + name + `}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: fake.csi.example.com, volumeHandle: ` + name + `}
` + classLine + extra
}

func proxyPVC(name, classLine, extra string) string {
	return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ` + name + `, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
` + classLine + extra
}

func upstreamStorage(t *testing.T) string {
	const each = `jsonpath={range .items[*]}{.kind} {.metadata.name} {.metadata.resourceVersion} {.spec.claimRef.namespace} {.metadata.annotations}{"\n"}{end}`
	return admin(t, "get", "pv", "-l", "zoo.kubectl-zoo.io/tenant=beta", "-o", each) +
		admin(t, "get", "pv", "proxy-platform-pv", "-o", "jsonpath={.metadata.resourceVersion} {.spec.claimRef.namespace}/{.spec.claimRef.name}") +
		admin(t, "get", "storageclass,ingressclass", "-o", each) +
		admin(t, "get", "pvc", "-n", "beta-default", "-o", "name")
}

// TestStorageThroughProxy: acme, through its proxy, tries to bind beta's
// volumes, capture beta's claims, use beta's classes and make its classes the
// default. What is refused is refused by the proxy (403 naming why); what is
// translated stays inside acme and binds nothing of beta's. acme's claims
// bind acme's own volumes and the platform's shared ones.
func TestStorageThroughProxy(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	allowStaticVolumes(t, "acme", "beta") // storage_hosts_test.go
	for _, m := range []string{`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: proxy-shared}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
`, `apiVersion: v1
kind: PersistentVolume
metadata: {name: proxy-platform-pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /tmp/zoo-proxy-platform}
  storageClassName: proxy-shared
`} {
		res := framework.Run(t.Context(), []byte(m), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "apply", "-f", "-")
		require.NoError(t, res.Err, res.Stderr)
	}
	t.Cleanup(func() {
		// t.Context() is done in Cleanup: delete with a fresh one.
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "pv/proxy-platform-pv", "storageclass/proxy-shared", "pv/beta-vault", "pv/beta-loose", "pv/beta-pooled",
			"pv/acme-mine", "pv/acme-trap", "--ignore-not-found", "--wait=false")
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "-n", "acme-default", "pvc", "data", "shared", "nothing", "classless", "--ignore-not-found", "--wait=false")
	})
	// beta's volumes: one of a class of its own, one without class, one of
	// the shared class (all in beta's pool upstream).
	beta.apply(t, proxyPV("vault", "  storageClassName: fast\n", ""))
	beta.apply(t, proxyPV("loose", "", ""))
	beta.apply(t, proxyPV("pooled", "  storageClassName: proxy-shared\n", ""))
	assert.Equal(t, "beta-fast beta-zoo-no-class beta-proxy-shared",
		admin(t, "get", "pv", "beta-vault", "beta-loose", "beta-pooled", "-o", "jsonpath={.items[*].spec.storageClassName}"))

	// Positive controls.
	acme.apply(t, proxyPV("mine", "  storageClassName: manual\n", ""))
	acme.apply(t, proxyPVC("data", "  storageClassName: manual\n", ""))
	acme.apply(t, proxyPVC("shared", "  storageClassName: proxy-shared\n", ""))
	require.Eventually(t, func() bool {
		return admin(t, "get", "pvc", "-n", "acme-default", "data", "shared", "-o", "jsonpath={.items[*].spec.volumeName}") ==
			"acme-mine proxy-platform-pv"
	}, 60*time.Second, time.Second, "acme's claims bind acme's volume and the platform's")
	assert.Equal(t, "mine manual", acme.k(t, "get", "pvc", "data", "-o", "jsonpath={.spec.volumeName} {.spec.storageClassName}"))
	assert.Equal(t, "manual", acme.k(t, "get", "pv", "mine", "-o", "jsonpath={.spec.storageClassName}"))

	before := upstreamStorage(t)
	// Translated probes: accepted, but they stay in acme's pool.
	acme.apply(t, proxyPVC("nothing", "  storageClassName: beta-fast\n", "  volumeName: beta-vault\n"))
	acme.apply(t, proxyPVC("classless", "  storageClassName: \"\"\n", ""))
	acme.apply(t, proxyPV("trap", "  storageClassName: manual\n", "  claimRef: {namespace: beta-default, name: data}\n"))
	assert.Equal(t, "acme-beta-fast acme-beta-vault", admin(t, "get", "pvc", "-n", "acme-default", "nothing",
		"-o", "jsonpath={.spec.storageClassName} {.spec.volumeName}"), "beta's names become acme's own")
	assert.Equal(t, "acme-zoo-no-class", admin(t, "get", "pvc", "-n", "acme-default", "classless", "-o", "jsonpath={.spec.storageClassName}"))
	assert.Equal(t, "acme-beta-default", admin(t, "get", "pv", "acme-trap", "-o", "jsonpath={.spec.claimRef.namespace}"))

	c, host := rawClient(t, acme)
	for _, tc := range []struct {
		name, method, path, ct, body, want string
	}{
		{"volume with the deprecated class annotation", "POST", "/api/v1/persistentvolumes", "",
			`{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"sneak","annotations":{"volume.beta.kubernetes.io/storage-class":"proxy-shared"}},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"csi":{"driver":"fake.csi.example.com","volumeHandle":"x"}}}`,
			"volume.beta.kubernetes.io/storage-class"},
		{"claim with the deprecated class annotation", "POST", "/api/v1/namespaces/default/persistentvolumeclaims", "",
			`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"sneak","annotations":{"volume.beta.kubernetes.io/storage-class":"beta-fast"}},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`,
			"volume.beta.kubernetes.io/storage-class"},
		{"claim of the reserved class", "POST", "/api/v1/namespaces/default/persistentvolumeclaims", "",
			`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"sneak"},"spec":{"storageClassName":"zoo-no-class","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`,
			"reserved"},
		{"default storage class", "POST", "/apis/storage.k8s.io/v1/storageclasses", "",
			`{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"gold","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"kubernetes.io/no-provisioner"}`,
			"storageclass.kubernetes.io/is-default-class"},
		{"beta-key default storage class", "POST", "/apis/storage.k8s.io/v1/storageclasses", "",
			`{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"gold","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}},"provisioner":"kubernetes.io/no-provisioner"}`,
			"storageclass.beta.kubernetes.io/is-default-class"},
		{"default ingress class", "POST", "/apis/networking.k8s.io/v1/ingressclasses", "",
			`{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"edge","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}},"spec":{"controller":"example.com/x"}}`,
			"ingressclass.kubernetes.io/is-default-class"},
		{"storage class made default by a json patch copy", "PATCH", "/apis/storage.k8s.io/v1/storageclasses/silver", "application/json-patch+json",
			`[{"op":"copy","from":"/metadata/annotations/note","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class"}]`,
			"storageclass.kubernetes.io/is-default-class"},
		{"storage class made default by a merge patch", "PATCH", "/apis/storage.k8s.io/v1/storageclasses/silver", "application/merge-patch+json",
			`{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`,
			"storageclass.kubernetes.io/is-default-class"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.ct != "" {
				h["Content-Type"] = tc.ct
			}
			code, body := do(t, c, tc.method, host+tc.path, h, tc.body)
			assert.Equal(t, http.StatusForbidden, code, body)
			assert.Contains(t, body, tc.want)
			assert.NotContains(t, body, "ValidatingAdmissionPolicy", "the proxy refuses it before the upstream")
		})
	}
	// "false" makes no class the default: a tenant may write it and remove
	// it, through the proxy as directly upstream (TestStorageAttacksUpstream),
	// but never turn it to "true".
	t.Run("a class explicitly not the default", func(t *testing.T) {
		acme.apply(t, `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: bronze
  annotations: {storageclass.kubernetes.io/is-default-class: "false", storageclass.beta.kubernetes.io/is-default-class: "false"}
provisioner: kubernetes.io/no-provisioner
`)
		assert.Equal(t, "false", admin(t, "get", "storageclass", "acme-bronze", "-o", `jsonpath={.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}`))
		res := acme.run(t, "", "annotate", "storageclass", "bronze", "--overwrite", "storageclass.kubernetes.io/is-default-class=true")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "storageclass.kubernetes.io/is-default-class")
		assert.NotContains(t, res.Stderr, "ValidatingAdmissionPolicy", "the proxy refuses it before the upstream")
		acme.k(t, "annotate", "storageclass", "bronze", "storageclass.kubernetes.io/is-default-class-", "storageclass.beta.kubernetes.io/is-default-class-")
		assert.Equal(t, "[] []", admin(t, "get", "storageclass", "acme-bronze", "-o",
			`jsonpath=[{.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}] [{.metadata.annotations.storageclass\.beta\.kubernetes\.io/is-default-class}]`))
		acme.k(t, "annotate", "storageclass", "bronze", "storageclass.kubernetes.io/is-default-class=false")
		acme.apply(t, `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: plain
  annotations: {ingressclass.kubernetes.io/is-default-class: "false"}
spec: {controller: example.com/x}
`)
		acme.k(t, "delete", "storageclass", "bronze")
		acme.k(t, "delete", "ingressclass", "plain")
	})
	// A global-default PriorityClass is capped by the proxy: it is stored,
	// but never as the default (directly upstream zoo-tenant-priority
	// refuses it: TestStorageAttacksUpstream).
	acme.apply(t, `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: everyone}
value: 0
globalDefault: true
`)
	assert.NotEqual(t, "true", admin(t, "get", "priorityclass", "acme-everyone", "-o", "jsonpath={.globalDefault}"))
	acme.k(t, "delete", "priorityclass", "everyone")

	// Give the binder time for a few rounds, then nothing of beta changed.
	time.Sleep(20 * time.Second)
	assert.Equal(t, before, upstreamStorage(t), "nothing of beta or the platform changed")
	assert.Equal(t, "Available Available Available", admin(t, "get", "pv", "beta-vault", "beta-loose", "beta-pooled",
		"-o", "jsonpath={.items[*].status.phase}"))
	assert.Equal(t, "Pending Pending", admin(t, "get", "pvc", "-n", "acme-default", "nothing", "classless",
		"-o", "jsonpath={.items[*].status.phase}"))
	assert.False(t, strings.Contains(admin(t, "get", "storageclass", "-o", "jsonpath={.items[*].metadata.annotations}"), `"true"`),
		"no class became the default")
}
