package proxy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// The schema walk (pkg/translate TestSchemaWalk) found a claim template's
// spec.volumeName untranslated: the StatefulSet and ephemeral-volume
// controllers make the claim from it, and the binder bound it to the
// volume it named. These tests are the attacks on a platform's Available
// volume (unlabeled, kept for a claim of the platform's own) through claim
// templates, each tried through the proxy, with the tenant identity
// directly upstream, with a tenant pod's ServiceAccount token and through
// the server deployment.

const claimTplPV = "zoo-e2e-claimtpl-pv"

// claimTplAttack is a template that names the platform's volume, and the
// claim its controller makes from it.
type claimTplAttack struct {
	name     string
	manifest func(name string) string
	claim    func(name string) string
}

var claimTplAttacks = []claimTplAttack{{
	name: "pod ephemeral volume",
	manifest: func(name string) string {
		return `apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  containers: [{name: c, image: busybox}]
  volumes:
  - name: v
    ephemeral:
      volumeClaimTemplate:
        spec: {accessModes: [ReadWriteOnce], volumeName: ` + claimTplPV + `, resources: {requests: {storage: 1Gi}}}
`
	},
	claim: func(name string) string { return name + "-v" },
}, {
	name: "StatefulSet claim template",
	manifest: func(name string) string {
		return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ` + name + `}
spec:
  serviceName: ` + name + `
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec: {containers: [{name: c, image: busybox}]}
  volumeClaimTemplates:
  - metadata: {name: d}
    spec: {accessModes: [ReadWriteOnce], volumeName: ` + claimTplPV + `, resources: {requests: {storage: 1Gi}}}
`
	},
	claim: func(name string) string { return "d-" + name + "-0" },
}}

// platformVolume is the platform's volume's binding and phase.
func platformVolume(t *testing.T) string {
	return admin(t, "get", "pv", claimTplPV, "-o", "jsonpath={.spec.claimRef.namespace}/{.spec.claimRef.name} {.status.phase}")
}

// TestClaimTemplatesNameOnlyTheTenantsVolumes: a claim template of tenant
// acme that names the platform's Available volume never gets it. Through
// the proxy (serve and the server) the template's volumeName is translated
// into acme's space, so the claim the controller makes names a volume of
// acme's; written upstream by acme's identity or a pod's ServiceAccount,
// zoo-tenant-storage refuses the claim the controller makes.
func TestClaimTemplatesNameOnlyTheTenantsVolumes(t *testing.T) {
	acme := serve(t, "acme")
	lb := servers(t)
	acme.k(t, "create", "namespace", "claimtpl")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "claimtpl", "--wait=false") })
	acme.k(t, "create", "rolebinding", "sa-admin", "-n", "claimtpl", "--clusterrole=admin", "--serviceaccount=claimtpl:default")
	sa := saKubeconfig(t, acme, "claimtpl")
	res := framework.Run(t.Context(), []byte(`apiVersion: v1
kind: PersistentVolume
metadata: {name: `+claimTplPV+`}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/zoo-e2e-claimtpl}
`), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "pv", claimTplPV, "--wait=false")
	})
	require.Eventually(t, func() bool { return platformVolume(t) == "/ Available" }, 30*time.Second, 200*time.Millisecond)
	before := othersState(t)

	upstream := func(flags ...string) func(manifest string) framework.Result {
		return func(manifest string) framework.Result {
			return framework.Run(t.Context(), []byte(manifest), framework.KubectlPath(),
				append(flags, "-n", "acme-claimtpl", "create", "-f", "-")...)
		}
	}
	viaProxy := func(s *served) func(manifest string) framework.Result {
		return func(manifest string) framework.Result {
			return s.run(t, manifest, "-n", "claimtpl", "create", "-f", "-")
		}
	}
	ways := []struct {
		name       string
		create     func(manifest string) framework.Result
		translated bool
	}{
		{"through the proxy", viaProxy(acme), true},
		{"tenant identity upstream", upstream(append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, tenantIdentity...)...), false},
		{"pod ServiceAccount upstream", upstream("--kubeconfig", sa), false},
		{"through the server", viaProxy(viaServer(t, lb, "acme")), true},
	}
	for i, way := range ways {
		for j, attack := range claimTplAttacks {
			name := "steal-" + string(rune('a'+i)) + string(rune('a'+j))
			t.Run(way.name+"/"+attack.name, func(t *testing.T) {
				res := way.create(attack.manifest(name))
				require.NoError(t, res.Err, "the template itself is the tenant's business: %s", res.Stderr)
				claim := attack.claim(name)
				if way.translated {
					// Stopped by the proxy: the controller's claim names acme's volume of that name.
					require.Eventually(t, func() bool {
						r := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
							"get", "pvc", "-n", "acme-claimtpl", claim, "-o", "jsonpath={.spec.volumeName}")
						return r.Err == nil && r.Stdout != ""
					}, 60*time.Second, 250*time.Millisecond, "the controller makes the claim")
					assert.Equal(t, "acme-"+claimTplPV, admin(t, "get", "pvc", "-n", "acme-claimtpl", claim, "-o", "jsonpath={.spec.volumeName}"))
				} else {
					// Stopped upstream: zoo-tenant-storage refuses the claim the controller makes.
					waitControllerRefusal(t, claim)
					r := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
						"get", "pvc", "-n", "acme-claimtpl", claim)
					assert.Error(t, r.Err, "no claim was made: %s", r.Stdout)
				}
				time.Sleep(2 * time.Second) // the binder acts on a new claim at once
				assert.Equal(t, "/ Available", platformVolume(t), "the platform's volume stays unbound")
			})
		}
	}
	assert.Equal(t, before, othersState(t), "nothing outside acme changed")
}

// waitControllerRefusal waits until the kube-controller-manager's log shows
// zoo-tenant-storage refusing the claim named claim.
func waitControllerRefusal(t *testing.T, claim string) {
	t.Helper()
	log := filepath.Join(framework.Cluster().Dir, "logs", "kube-controller-manager.log")
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(log)
		if err != nil {
			return false
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, claim) && strings.Contains(line, "zoo-tenant-storage") &&
				strings.Contains(line, "may only name the tenant") {
				return true
			}
		}
		return false
	}, 60*time.Second, 500*time.Millisecond, "zoo-tenant-storage refuses the claim %s the controller makes", claim)
}
