package proxy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDRAAdminAccessIsThePlatforms: a namespace labeled
// resource.kubernetes.io/admin-access=true lets its ResourceClaims ask for
// adminAccess, which the scheduler allocates devices other claims hold: a
// tenant with it would take another tenant's device. The label is in the
// platform's kubernetes.io domain, so no tenant path may set it, and without
// it the API server refuses the claim.
func TestDRAAdminAccessIsThePlatforms(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "dra-admin")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "dra-admin", "--wait=false") })
	paths := attackPaths(t, acme, "dra-admin")
	before := othersState(t)
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			res := p.run(t, "", "label", "namespace", p.ns("dra-admin"), "resource.kubernetes.io/admin-access=true")
			want := "resource.kubernetes.io/admin-access"
			if p.layer == "zoo-tenant" {
				want = "zoo-tenant-metadata"
			}
			refusedBy(t, res, p.layer, want)
		})
	}
	assert.Empty(t, admin(t, "get", "namespace", "acme-dra-admin", "-o", `jsonpath={.metadata.labels.resource\.kubernetes\.io/admin-access}`))
	res := acme.run(t, `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: admin, namespace: dra-admin}
spec:
  devices:
    requests:
    - name: req
      exactly: {deviceClassName: gpu.example.com, adminAccess: true}
`, "create", "-f", "-")
	require.Error(t, res.Err, "a claim with adminAccess in a namespace without the label: %s", res.Stdout)
	assert.Contains(t, res.Stderr, "admin-access")
	assert.Equal(t, before, othersState(t), "nothing of beta or the platform changed")
}
