package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGroupsOfTheBuiltinDomains: a group of the built-in domains that
// Kubernetes does not serve is a tenant's own (issue 25, class 5): it lives
// upstream outside the protected domains, under the tenant's prefix, and
// comes back as it went; a platform's CRD group there is nobody's in a
// tenant's view; the pinned and the platform's shared groups stay as they
// are.
func TestGroupsOfTheBuiltinDomains(t *testing.T) {
	acme, beta := MustTenant("acme"), MustTenant("beta")
	for _, tc := range []struct {
		group, upstream string
	}{
		{"samplecontroller.k8s.io", "acme-samplecontroller.k8s-io"},
		{"gateway.networking.k8s.io", "acme-gateway.networking.k8s-io"},
		{"snapshot.storage.k8s.io", "acme-snapshot.storage.k8s-io"},
		{"x.kubernetes.io", "acme-x.kubernetes-io"},
		{"apps", "apps"},
		{"networking.k8s.io", "networking.k8s.io"},
		{"storagemigration.k8s.io", "storagemigration.k8s.io"}, // alpha, in client-go's scheme
		{"metrics.k8s.io", "metrics.k8s.io"},
		{"meta.k8s.io", "meta.k8s.io"},
		{"stable.example.com", "acme-stable.example.com"},
	} {
		t.Run(tc.group, func(t *testing.T) {
			up, err := acme.UpstreamAPIGroup(tc.group)
			assert.NoError(t, err)
			assert.Equal(t, tc.upstream, up)
			assert.False(t, IsBuiltinGroup(up) && !IsSharedGroup(up), "a tenant's group is not in a protected domain upstream")
			back, ok := acme.TenantAPIGroup(up)
			assert.True(t, ok)
			assert.Equal(t, tc.group, back)
			if !IsSharedGroup(tc.group) {
				_, ok := beta.TenantAPIGroup(up)
				assert.False(t, ok, "another tenant's")
			}
		})
	}
	for _, platform := range []string{"gateway.networking.k8s.io", "snapshot.storage.k8s.io", "foo.kubernetes.io"} {
		_, ok := acme.TenantAPIGroup(platform)
		assert.False(t, ok, "the platform's CRD group %s is nobody's in a tenant's view", platform)
	}
	crd, ok := acme.TenantCRDName("foos.acme-samplecontroller.k8s-io")
	assert.True(t, ok)
	assert.Equal(t, "foos.samplecontroller.k8s.io", crd)
	_, ok = acme.TenantCRDName("httproutes.gateway.networking.k8s.io")
	assert.False(t, ok)
	for _, reserved := range []string{"foo.kubernetes-io", "foo.k8s-io", "k8s.io", "kubernetes.io"} {
		_, err := acme.UpstreamAPIGroup(reserved)
		assert.Error(t, err, "%s is reserved", reserved)
	}
}
