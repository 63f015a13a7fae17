package users

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestUserGrantRBAC pins what a grant allows: the one user, the tenant's
// group, the tenant's record, and nothing else (no zoo:admins, no
// ServiceAccounts, UIDs or extras), owned by the record.
func TestUserGrantRBAC(t *testing.T) {
	owner := tenantOwnerRef("acme", "uid-1")
	role, binding, err := UserGrantRBAC(UserGrant{Tenant: "acme", UpstreamUser: "alice@corp", User: "dev"}, owner)
	require.NoError(t, err)
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"users"}, Verbs: []string{"impersonate"}, ResourceNames: []string{"zoo:acme:dev"}},
		{APIGroups: []string{""}, Resources: []string{"groups"}, Verbs: []string{"impersonate"}, ResourceNames: []string{"zoo:tenant:acme"}},
		{APIGroups: []string{translate.APIGroup}, Resources: []string{"tenants"}, Verbs: []string{"get"}, ResourceNames: []string{"acme"}},
	}, role.Rules)
	assert.Equal(t, role.Name, binding.Name)
	assert.True(t, strings.HasPrefix(role.Name, "zoo:tenant-user:acme:"), role.Name)
	assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice@corp"}}, binding.Subjects)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}, binding.RoleRef)
	for _, m := range []metav1.ObjectMeta{role.ObjectMeta, binding.ObjectMeta} {
		assert.Equal(t, []metav1.OwnerReference{owner}, m.OwnerReferences)
		assert.Equal(t, "acme", m.Labels[UserGrantTenantLabel])
		assert.Empty(t, m.Labels[translate.TenantLabel], "a grant is never the tenant's own object")
	}
	g, ok := userGrantOf(binding)
	require.True(t, ok)
	assert.Equal(t, UserGrant{Tenant: "acme", UpstreamUser: "alice@corp", User: "dev"}, g)

	acme, _ := translate.NewTenant("acme")
	assert.NotEqual(t, UserGrantName(acme, "alice@corp"), UserGrantName(acme, "alice@corp2"))
	binding.Annotations[UpstreamUserAnnotation] = "mallory"
	_, ok = userGrantOf(binding)
	assert.False(t, ok, "a binding whose name is not its upstream user's is no grant")
}

func TestValidateUserGrant(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    UserGrant
		want string
	}{
		{"ok", UserGrant{Tenant: "acme", UpstreamUser: "alice@corp", User: "dev"}, ""},
		{"oidc name", UserGrant{Tenant: "acme", UpstreamUser: "https://issuer#sub", User: "alice"}, ""},
		{"bad tenant", UserGrant{Tenant: "Acme", UpstreamUser: "alice@corp", User: "dev"}, "Acme"},
		{"no upstream user", UserGrant{Tenant: "acme", User: "dev"}, "--upstream-user must not be empty"},
		{"tenant identity", UserGrant{Tenant: "acme", UpstreamUser: "zoo:beta:dev", User: "dev"}, "is a tenant identity already"},
		{"system user", UserGrant{Tenant: "acme", UpstreamUser: "system:serviceaccount:a:b", User: "dev"}, "system: users"},
		{"control char", UserGrant{Tenant: "acme", UpstreamUser: "alice\n", User: "dev"}, "control character"},
		{"as with colon", UserGrant{Tenant: "acme", UpstreamUser: "oidc:alice", User: "oidc:alice"}, `user "oidc:alice" may contain only letters`},
		{"as upstream form", UserGrant{Tenant: "acme", UpstreamUser: "alice", User: "zoo:acme:alice"}, "give the tenant-local name"},
		{"as system", UserGrant{Tenant: "acme", UpstreamUser: "alice", User: "system:admin"}, "system: names belong to the cluster"},
		{"as empty", UserGrant{Tenant: "acme", UpstreamUser: "alice"}, "--as must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateUserGrant(tc.g)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
