package platformobj

import (
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCertGrantRBAC: a certificate's user may impersonate exactly the
// tenant user, the tenant's group and the certificate's own groups —
// never zoo:admins, another user, ServiceAccounts, UIDs or extras — and
// only the certificate user of its own tenant is granted.
func TestCertGrantRBAC(t *testing.T) {
	owner := metav1.OwnerReference{APIVersion: "zoo.kubectl-zoo.io/v1alpha1", Kind: tenantapi.TenantKind, Name: "acme", UID: "u1"}
	g := CertGrant{Tenant: "acme", Serial: "a1", CertUser: CertUserPrefix + "acme:0f0f", User: "carol", Groups: []string{"ops"}}
	role, binding, err := CertGrantRBAC(g, owner)
	require.NoError(t, err)
	assert.Equal(t, "zoo:cert:acme:a1", role.Name)
	assert.Equal(t, role.Name, binding.Name)
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"users"}, Verbs: []string{"impersonate"}, ResourceNames: []string{"zoo:acme:carol"}},
		{APIGroups: []string{""}, Resources: []string{"groups"}, Verbs: []string{"impersonate"}, ResourceNames: []string{"zoo:tenant:acme", "zoo:acme:ops"}},
	}, role.Rules)
	assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: g.CertUser}}, binding.Subjects)
	assert.Equal(t, []metav1.OwnerReference{owner}, binding.OwnerReferences, "it goes with the tenant")
	assert.Equal(t, "acme", binding.Labels[CertGrantTenantLabel])

	for _, bad := range []string{"zoo:acme:carol", CertUserPrefix + "beta:0f0f", CertUserPrefix + "acme", "carol"} {
		t.Run(bad, func(t *testing.T) {
			g := g
			g.CertUser = bad
			_, _, err := CertGrantRBAC(g, owner)
			require.Error(t, err)
		})
	}
}

// TestIsCertUser tells a certificate's user, and its tenant, from any
// other user.
func TestIsCertUser(t *testing.T) {
	cases := []struct {
		user, tenant string
		ok           bool
	}{
		{user: "zoo-cert:acme:0f0f", tenant: "acme", ok: true},
		{user: "zoo-cert:acme:"},
		{user: "zoo-cert:acme"},
		{user: "zoo-cert:Bad-Name:1"},
		{user: "zoo:acme:carol"},
		{user: "system:admin"},
	}
	for _, c := range cases {
		t.Run(c.user, func(t *testing.T) {
			tenant, ok := IsCertUser(c.user)
			assert.Equal(t, c.ok, ok)
			if c.ok {
				assert.Equal(t, c.tenant, tenant)
			}
		})
	}
}
