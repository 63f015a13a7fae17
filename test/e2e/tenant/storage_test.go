package tenant_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

const byStorage = "ValidatingAdmissionPolicy 'zoo-tenant-storage'"

// byDefaultClass names the layer that refuses a default class: two policies
// do, zoo-tenant-storage and zoo-tenant-metadata (the key is the
// platform's), and the API server reports one of them.
const byDefaultClass = "ValidatingAdmissionPolicy 'zoo-tenant-"

// pvYAML is a static hostPath volume (there is no provisioner in the test
// cluster; the binder binds static volumes for real).
func pvYAML(name, class, labels, extraSpec string) string {
	meta := ""
	if labels != "" {
		meta = "\n  labels: {" + labels + "}"
	}
	cls := ""
	if class != "" {
		cls = "\n  storageClassName: " + class
	}
	return fmt.Sprintf(`apiVersion: v1
kind: PersistentVolume
metadata:
  name: %s%s
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: fake.csi.example.com, volumeHandle: %s}%s%s
`, name, meta, name, cls, extraSpec)
}

func pvcYAML(ns, name, class, extraSpec string) string {
	cls := ""
	if class != "" {
		cls = "\n  storageClassName: " + class
	}
	return fmt.Sprintf(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: %s
  namespace: %s
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}%s%s
`, name, ns, cls, extraSpec)
}

// field reads one field of an upstream object as the admin.
func field(t *testing.T, jsonpath string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(framework.Kubectl(t, append(args, "-o", "jsonpath="+jsonpath)...))
}

// storageState is what acme's probes aim at: beta's volumes and claims, the
// platform's volume, and which classes are defaults.
func storageState(t *testing.T) string {
	return framework.Kubectl(t, "get", "pv,pvc,storageclass,ingressclass", "-A", "-o",
		`jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name} {.metadata.resourceVersion} {.metadata.annotations}{"\n"}{end}`)
}

// TestStorageAttacksUpstream: acme's identities, used directly upstream,
// try to bind beta's volumes, capture beta's claims, use beta's classes and
// make their classes everyone's default. Each is refused by the layer named,
// nothing of beta or the platform changes; acme's own binding and binding to
// the platform's shared volumes work.
func TestStorageAttacksUpstream(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	allowStaticVolumes(t, "acme", "beta")
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	betaAdmin := []string{"--as", "zoo:beta:admin", "--as-group", "zoo:tenant:beta", "--as-group", "zoo:admins"}
	apply := func(who []string, manifest string) framework.Result {
		t.Helper()
		return kubectl(t, manifest, append(append([]string{}, who...), "apply", "-f", "-")...)
	}
	mustApply := func(who []string, manifest string) {
		t.Helper()
		res := apply(who, manifest)
		require.NoError(t, res.Err, "%s\n%s", manifest, res.Stderr)
	}

	// The platform shares a class and one volume of it on purpose.
	mustApply(nil, `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: e2e-shared}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
`)
	mustApply(nil, pvYAML("e2e-platform-pv", "e2e-shared", "", ""))
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "pv/e2e-platform-pv", "storageclass/e2e-shared", "--ignore-not-found", "--wait=false")
	})
	// beta's volumes, as the proxy would store them.
	mustApply(betaAdmin, pvYAML("beta-vault", "beta-fast", "zoo.kubectl-zoo.io/tenant: beta", ""))
	mustApply(betaAdmin, pvYAML("beta-loose", "beta-zoo-no-class", "zoo.kubectl-zoo.io/tenant: beta", ""))
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "pv/beta-vault", "pv/beta-loose", "pv/acme-mine", "--ignore-not-found", "--wait=false")
	})

	// Positive controls: acme's claim binds acme's volume, and a claim for
	// the shared class binds the platform's volume.
	mustApply(admin, pvYAML("acme-mine", "acme-manual", "zoo.kubectl-zoo.io/tenant: acme", ""))
	mustApply(admin, pvcYAML("acme-default", "data", "acme-manual", ""))
	mustApply(admin, pvcYAML("acme-default", "shared", "e2e-shared", ""))
	require.Eventually(t, func() bool {
		return field(t, "{.spec.volumeName}", "-n", "acme-default", "get", "pvc", "data") == "acme-mine" &&
			field(t, "{.spec.volumeName}", "-n", "acme-default", "get", "pvc", "shared") == "e2e-platform-pv"
	}, 60*time.Second, time.Second, "the binder binds acme's claims to acme's and to the platform's volumes")

	// A ServiceAccount of a pod in acme's namespace with every right there.
	framework.Kubectl(t, "create", "serviceaccount", "builder", "-n", "acme-default")
	res := kubectl(t, "", append(admin, "create", "rolebinding", "builder", "-n", "acme-default",
		"--clusterrole=zoo-tenant-admin", "--serviceaccount=acme-default:builder")...)
	require.NoError(t, res.Err, res.Stderr)
	sa := tokenKubeconfig(t, strings.TrimSpace(framework.Kubectl(t, "create", "token", "builder", "-n", "acme-default")))
	require.Eventually(t, func() bool {
		return kubectlWith(t, sa, "", "auth", "can-i", "create", "persistentvolumeclaims", "-n", "acme-default").Err == nil
	}, 20*time.Second, 200*time.Millisecond)

	before := storageState(t)
	for _, tc := range []struct {
		name     string
		who      []string // nil: the ServiceAccount token
		manifest string
		patch    []string // instead of a manifest: kubectl patch args
		denial   string
	}{
		// Storage: acme's claims may not reach beta's volumes ...
		{"claim names beta's volume", admin, pvcYAML("acme-default", "steal", "", "\n  volumeName: beta-vault"), nil, byStorage},
		{"claim names beta's class-less volume with beta's reserved class", admin, pvcYAML("acme-default", "steal2", "beta-zoo-no-class", ""), nil, byStorage},
		{"claim asks for beta's class", admin, pvcYAML("acme-default", "steal3", "beta-fast", ""), nil, byStorage},
		{"claim asks for beta's class by the deprecated annotation", admin,
			strings.Replace(pvcYAML("acme-default", "steal4", "", ""), "  namespace: acme-default", "  namespace: acme-default\n  annotations: {volume.beta.kubernetes.io/storage-class: beta-fast}", 1), nil, byStorage},
		{"ServiceAccount claim names beta's volume", nil, pvcYAML("acme-default", "steal5", "", "\n  volumeName: beta-vault"), nil, byStorage},
		{"ServiceAccount claim asks for beta's class", nil, pvcYAML("acme-default", "steal6", "beta-fast", ""), nil, byStorage},
		// ... and acme's volumes may not reach beta's claims, nor the shared pool.
		{"volume pre-bound to beta's namespace", admin, pvYAML("acme-trap", "acme-manual", "zoo.kubectl-zoo.io/tenant: acme",
			"\n  claimRef: {namespace: beta-default, name: data}"), nil, byStorage},
		{"volume in the shared class", admin, pvYAML("acme-pool", "e2e-shared", "zoo.kubectl-zoo.io/tenant: acme", ""), nil, byStorage},
		{"volume without class", admin, pvYAML("acme-pool2", "", "zoo.kubectl-zoo.io/tenant: acme", ""), nil, byStorage},
		{"volume in beta's class", admin, pvYAML("acme-pool3", "beta-fast", "zoo.kubectl-zoo.io/tenant: acme", ""), nil, byStorage},
		{"volume moved into the shared class by a patch", admin, "",
			[]string{"patch", "pv", "acme-mine", "--type=merge", "-p", `{"metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"e2e-shared"}}}`}, byStorage},
		{"volume re-pointed at beta's claim by a json patch", admin, "",
			[]string{"patch", "pv", "acme-mine", "--type=json", "-p", `[{"op":"replace","path":"/spec/claimRef/namespace","value":"beta-default"}]`}, byStorage},
		{"ServiceAccount creates a volume", nil, pvYAML("acme-sa", "acme-manual", "zoo.kubectl-zoo.io/tenant: acme", ""), nil, byRBAC},
		// Defaults that reach everyone.
		{"default storage class", admin, `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: acme-gold
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
`, nil, byDefaultClass},
		{"beta-key default storage class in odd casing", admin, `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: acme-gold2
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {StorageClass.Beta.Kubernetes.io/Is-Default-Class: "true"}
provisioner: kubernetes.io/no-provisioner
`, nil, byStorage},
		{"default ingress class", admin, `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: acme-nginx
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec: {controller: example.com/ingress}
`, nil, byDefaultClass},
		{"global default priority class", admin, `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: acme-low
  labels: {zoo.kubectl-zoo.io/tenant: acme}
value: 0
globalDefault: true
`, nil, "ValidatingAdmissionPolicy 'zoo-tenant-"},
		{"ServiceAccount default storage class", nil, `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: acme-gold3
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
`, nil, byRBAC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res framework.Result
			switch {
			case tc.patch != nil:
				res = kubectl(t, "", append(append([]string{}, tc.who...), tc.patch...)...)
			case tc.who == nil:
				res = kubectlWith(t, sa, tc.manifest, "create", "-f", "-")
			default:
				res = kubectl(t, tc.manifest, append(append([]string{}, tc.who...), "create", "-f", "-")...)
			}
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, tc.denial)
		})
	}
	// A tenant's own class is fine; making it the default by a later patch
	// is not.
	mustApply(admin, `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: acme-silver
  labels: {zoo.kubectl-zoo.io/tenant: acme}
provisioner: kubernetes.io/no-provisioner
`)
	res = kubectl(t, "", append(admin, "annotate", "storageclass", "acme-silver", "--overwrite", "storageclass.kubernetes.io/is-default-class=true")...)
	require.Error(t, res.Err)
	// Two policies refuse it: zoo-tenant-storage (no default class) and
	// zoo-tenant-metadata (the key is the platform's, at any value but
	// "false").
	assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-")
	// "false" makes no class the default: the tenant may write it, and
	// remove it, as through the proxy (TestStorageThroughProxy).
	for _, args := range [][]string{
		{"annotate", "storageclass", "acme-silver", "storageclass.kubernetes.io/is-default-class=false"},
		{"annotate", "storageclass", "acme-silver", "storageclass.beta.kubernetes.io/is-default-class=false"},
		{"annotate", "storageclass", "acme-silver", "storageclass.kubernetes.io/is-default-class-"},
	} {
		res := kubectl(t, "", append(admin, args...)...)
		require.NoError(t, res.Err, "%v: %s", args, res.Stderr)
	}
	assert.Equal(t, "[] [false]", field(t, `[{.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}] [{.metadata.annotations.storageclass\.beta\.kubernetes\.io/is-default-class}]`,
		"get", "storageclass", "acme-silver"))
	for _, value := range []string{"true", "yes"} {
		res = kubectl(t, "", append(admin, "annotate", "storageclass", "acme-silver", "--overwrite", "storageclass.beta.kubernetes.io/is-default-class="+value)...)
		require.Error(t, res.Err, value)
		assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-")
	}
	framework.Kubectl(t, "delete", "storageclass", "acme-silver")
	mustApply(admin, `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: acme-plain
  labels: {zoo.kubectl-zoo.io/tenant: acme}
  annotations: {ingressclass.kubernetes.io/is-default-class: "false"}
spec: {controller: example.com/ingress}
`)
	framework.Kubectl(t, "delete", "ingressclass", "acme-plain")

	assert.Equal(t, before, storageState(t), "nothing of beta or the platform changed")
	assert.Empty(t, field(t, "{.spec.claimRef}", "get", "pv", "beta-vault"), "beta's volume stays unclaimed")
	assert.Equal(t, "Available", field(t, "{.status.phase}", "get", "pv", "beta-vault"))
	assert.Equal(t, "Available", field(t, "{.status.phase}", "get", "pv", "beta-loose"))
}

// TestStorageBinderIsJudged: a claim that asked for "gamma-x" before tenant
// gamma existed (the platform's name then) must not be bound to gamma's
// volume of that class when gamma appears: the binder's own write is refused
// by zoo-tenant-storage, and both stay as they were.
func TestStorageBinderIsJudged(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	res := kubectl(t, pvcYAML("acme-default", "early", "gamma-x", ""), append(admin, "create", "-f", "-")...)
	require.NoError(t, res.Err, "no tenant gamma yet: gamma-x is a platform class name; %s", res.Stderr)
	createTenant(t, "gamma")
	allowStaticVolumes(t, "gamma")
	res = kubectl(t, pvYAML("gamma-pv", "gamma-x", "zoo.kubectl-zoo.io/tenant: gamma", ""),
		"--as", "zoo:gamma:admin", "--as-group", "zoo:tenant:gamma", "--as-group", "zoo:admins", "create", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "pv/gamma-pv", "--ignore-not-found", "--wait=false")
	})
	// A claim of acme for gamma-x is now refused outright ...
	res = kubectl(t, pvcYAML("acme-default", "late", "gamma-x", ""), append(admin, "create", "-f", "-")...)
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, byStorage)
	// ... and the early one is never bound: the binder (claims are synced
	// again every 15 s) tries, and its write is denied. The controller
	// records no event for it, so count the policy's denials.
	denials := storageDenials(t)
	require.Eventually(t, func() bool { return storageDenials(t) > denials }, 60*time.Second, time.Second,
		"the binder tried to bind and zoo-tenant-storage denied it")
	assert.Empty(t, field(t, "{.spec.volumeName}", "-n", "acme-default", "get", "pvc", "early"))
	assert.Empty(t, field(t, "{.spec.claimRef}", "get", "pv", "gamma-pv"))
	assert.Equal(t, "Pending", field(t, "{.status.phase}", "-n", "acme-default", "get", "pvc", "early"))
}

// storageDenials sums the upstream's count of zoo-tenant-storage denials.
func storageDenials(t *testing.T) float64 {
	t.Helper()
	var n float64
	for _, line := range strings.Split(framework.Kubectl(t, "get", "--raw", "/metrics"), "\n") {
		if strings.HasPrefix(line, "apiserver_validating_admission_policy_check_total{") &&
			strings.Contains(line, `policy="zoo-tenant-storage"`) && strings.Contains(line, `enforcement_action="deny"`) {
			var v float64
			_, err := fmt.Sscanf(line[strings.LastIndex(line, " ")+1:], "%g", &v)
			require.NoError(t, err, line)
			n += v
		}
	}
	return n
}
