package proxy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// The schema walk (pkg/translate TestSchemaWalk) found a claim's device
// requests' deviceClassName untranslated, though DeviceClasses are
// shared: a tenant's claim could not name its own class, and could name
// another tenant's (its selectors and its drivers' configuration then
// apply to the tenant's devices). These are the attacks on tenant beta's
// class, through the proxy, with the tenant identity and a pod's
// ServiceAccount directly upstream, and through the server.

// deviceClassAttacks name beta's class (upstream beta-gpu) from a claim
// and from a claim template, in both kinds of request.
var deviceClassAttacks = []struct {
	name, manifest string
}{
	{"claim, exact request", `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: NAME}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: beta-gpu}}
`},
	{"claim template, first available", `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: NAME}
spec:
  spec:
    devices:
      requests:
      - name: r
        firstAvailable: [{name: s, deviceClassName: beta-gpu}]
`},
}

// TestDeviceClassesOfAnotherTenantRefused: acme's claims and claim
// templates name acme's own DeviceClass (translated) and never beta's.
func TestDeviceClassesOfAnotherTenantRefused(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	lb := servers(t)
	beta.apply(t, "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n")
	t.Cleanup(func() { beta.run(t, "", "delete", "deviceclass", "gpu") })
	acme.k(t, "create", "namespace", "devclass")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "devclass", "--wait=false") })
	acme.apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: everything, namespace: devclass}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
`)
	acme.k(t, "create", "rolebinding", "sa-everything", "-n", "devclass", "--role=everything", "--serviceaccount=devclass:default")
	sa := saKubeconfig(t, acme, "devclass")
	before := othersState(t) + admin(t, "get", "deviceclass", "beta-gpu", "-o", "jsonpath={.metadata.resourceVersion}")

	t.Run("the tenant's own class is translated", func(t *testing.T) {
		acme.apply(t, "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n")
		t.Cleanup(func() { acme.run(t, "", "delete", "deviceclass", "gpu") })
		acme.apply(t, strings.ReplaceAll(strings.ReplaceAll(deviceClassAttacks[0].manifest, "NAME", "own"), "beta-gpu", "gpu"), "-n", "devclass")
		assert.Equal(t, "acme-gpu", admin(t, "get", "resourceclaim", "-n", "acme-devclass", "own",
			"-o", "jsonpath={.spec.devices.requests[0].exactly.deviceClassName}"))
		assert.Equal(t, "gpu", acme.k(t, "get", "resourceclaim", "-n", "devclass", "own",
			"-o", "jsonpath={.spec.devices.requests[0].exactly.deviceClassName}"))
	})

	const byProxy = `deviceclasses.resource.k8s.io "beta-gpu" is forbidden: it is another tenant's`
	const byPolicy = "ValidatingAdmissionPolicy 'zoo-tenant-storage' with binding 'zoo-tenant-storage' denied request: objects of tenant acme may not name another tenant's class"
	upstream := func(flags ...string) func(manifest string) framework.Result {
		return func(manifest string) framework.Result {
			return framework.Run(t.Context(), []byte(manifest), framework.KubectlPath(), append(flags, "-n", "acme-devclass", "create", "-f", "-")...)
		}
	}
	viaProxy := func(s *served) func(manifest string) framework.Result {
		return func(manifest string) framework.Result {
			return s.run(t, manifest, "-n", "devclass", "create", "-f", "-")
		}
	}
	ways := []struct {
		name   string
		create func(manifest string) framework.Result
		denial string
	}{
		{"through the proxy", viaProxy(acme), byProxy},
		{"tenant identity upstream", upstream(append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, tenantIdentity...)...), byPolicy},
		{"pod ServiceAccount upstream", upstream("--kubeconfig", sa), byPolicy},
		{"through the server", viaProxy(viaServer(t, lb, "acme")), byProxy},
	}
	for i, way := range ways {
		for j, attack := range deviceClassAttacks {
			name := fmt.Sprintf("steal-%d-%d", i, j)
			t.Run(way.name+"/"+attack.name, func(t *testing.T) {
				res := way.create(strings.ReplaceAll(attack.manifest, "NAME", name))
				require.Error(t, res.Err, "naming beta's class must be refused; stdout: %s", res.Stdout)
				assert.Contains(t, res.Stderr, way.denial)
				assert.Empty(t, admin(t, "get", "resourceclaims,resourceclaimtemplates", "-n", "acme-devclass", "--field-selector=metadata.name="+name, "-o", "name"),
					"nothing was stored")
			})
		}
	}
	assert.Equal(t, before, othersState(t)+admin(t, "get", "deviceclass", "beta-gpu", "-o", "jsonpath={.metadata.resourceVersion}"),
		"nothing of beta's or the platform's changed")
}
