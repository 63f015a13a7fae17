package tenantuser_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestTenantUserBadInput: one line and exit 1 for every bad input, before
// anything is written.
func TestTenantUserBadInput(t *testing.T) {
	framework.InstallTenants(t)
	admin := framework.Cluster().Kubeconfig
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown tenant", []string{"add", "nosuch", "--upstream-user", "alice@corp"}, `tenant "nosuch" not found`},
		{"invalid tenant", []string{"add", "Acme", "--upstream-user", "alice@corp"}, `"Acme"`},
		{"no upstream user", []string{"add", "acme"}, "--upstream-user is required"},
		{"--as with a colon", []string{"add", "acme", "--upstream-user", "alice@corp", "--as", "dev:x"}, `user "dev:x" may contain only letters`},
		{"default --as not a local name", []string{"add", "acme", "--upstream-user", "oidc:alice"}, `user "oidc:alice" may contain only letters`},
		{"upstream user is a tenant identity", []string{"add", "acme", "--upstream-user", "zoo:beta:dev", "--as", "dev"}, "is a tenant identity already"},
		{"upstream user is a ServiceAccount", []string{"add", "acme", "--upstream-user", "system:serviceaccount:beta-default:default", "--as", "dev"}, "system: users"},
		{"--as an administrator", []string{"add", "acme", "--upstream-user", "alice@corp", "--as", "admin"}, `user "admin" is an administrator of tenant "acme"`},
		{"--as upstream form", []string{"add", "acme", "--upstream-user", "alice@corp", "--as", "zoo:acme:dev"}, "give the tenant-local name"},
		{"two tenants", []string{"add", "acme", "beta", "--upstream-user", "alice@corp"}, "takes exactly one tenant NAME"},
		{"remove without grant", []string{"remove", "acme", "--upstream-user", "nobody@corp"}, `upstream user "nobody@corp" has no grant in tenant "acme"`},
		{"remove without upstream user", []string{"remove", "acme"}, "--upstream-user is required"},
		{"list bad output", []string{"list", "-o", "wide"}, "--output must be one of json|yaml|name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			framework.RequireOneLineError(t, zoo(t, admin, append([]string{"tenant", "user"}, tc.args...)...), tc.want)
		})
	}
	assert.NotContains(t, mustZoo(t, "tenant", "user", "list", "-o", "name"), "acme/", "nothing was granted")
}

// TestTenantUserGrantsGoWithTheTenant: `tenant delete` removes the grants
// of its identities, so a new tenant of the same name inherits none; a grant
// is owned by the record (its UID), so the garbage collector removes one
// even when it outlives the record.
func TestTenantUserGrantsGoWithTheTenant(t *testing.T) {
	framework.InstallTenants(t)
	rbac := framework.AdminClient(t).RbacV1()
	mustZoo(t, "tenant", "create", "tugone")
	mustZoo(t, "tenant", "user", "add", "tugone", "--upstream-user", "carol@corp", "--as", "carol")
	mustZoo(t, "tenant", "user", "add", "tugone", "--upstream-user", "dave@corp", "--as", "dev")
	assert.Equal(t, "tugone/carol@corp\ntugone/dave@corp\n", mustZoo(t, "tenant", "user", "list", "tugone", "-o", "name"))
	// Completion offers the tenants, and the upstream users of one.
	assert.Contains(t, mustZoo(t, "__complete", "tenant", "user", "add", "tug"), "tugone\n")
	assert.Contains(t, mustZoo(t, "__complete", "tenant", "user", "remove", "tugone", "--upstream-user", "d"), "dave@corp\n")
	assert.NotContains(t, mustZoo(t, "__complete", "tenant", "user", "remove", "tugone", "--upstream-user", "d"), "carol@corp")
	grants, err := rbac.ClusterRoleBindings().List(t.Context(), metav1.ListOptions{LabelSelector: users.UserGrantTenantLabel + "=tugone"})
	require.NoError(t, err)
	require.Len(t, grants.Items, 2)
	require.Len(t, grants.Items[0].OwnerReferences, 1)
	assert.Equal(t, "Tenant", grants.Items[0].OwnerReferences[0].Kind)

	out := mustZoo(t, "tenant", "delete", "tugone")
	assert.Contains(t, out, "tenant/tugone deleted")
	for _, list := range []func() (int, error){
		func() (int, error) {
			l, err := rbac.ClusterRoleBindings().List(t.Context(), metav1.ListOptions{LabelSelector: users.UserGrantTenantLabel + "=tugone"})
			return len(l.Items), err
		},
		func() (int, error) {
			l, err := rbac.ClusterRoles().List(t.Context(), metav1.ListOptions{LabelSelector: users.UserGrantTenantLabel + "=tugone"})
			return len(l.Items), err
		},
	} {
		n, err := list()
		require.NoError(t, err)
		assert.Zero(t, n)
	}
	mustZoo(t, "tenant", "create", "tugone")
	assert.Empty(t, mustZoo(t, "tenant", "user", "list", "tugone", "-o", "name"), "the new tenant inherits no grant")

	// A grant that outlives its record (written by hand here, as a racing
	// `user add` could) is collected by the garbage collector.
	role, binding, err := users.UserGrantRBAC(users.UserGrant{Tenant: "tugone", UpstreamUser: "erin@corp", User: "erin"},
		metav1.OwnerReference{APIVersion: "zoo.kubectl-zoo.io/v1alpha1", Kind: "Tenant", Name: "tugone", UID: types.UID("0b5e7e7e-0000-4000-8000-000000000000")})
	require.NoError(t, err)
	_, err = rbac.ClusterRoles().Create(t.Context(), role, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = rbac.ClusterRoleBindings().Create(t.Context(), binding, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := rbac.ClusterRoleBindings().Get(t.Context(), binding.Name, metav1.GetOptions{})
		_, err2 := rbac.ClusterRoles().Get(t.Context(), role.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(err2)
	}, 60*time.Second, 500*time.Millisecond, "the garbage collector removes a grant whose tenant record is gone")
	mustZoo(t, "tenant", "delete", "tugone")
}

// TestTenantAdminCannotTouchGrants: a tenant's administrator, directly
// upstream, can neither rewrite a grant's role (to impersonate more) nor
// bind it to someone else, nor delete it.
func TestTenantAdminCannotTouchGrants(t *testing.T) {
	framework.InstallTenants(t)
	mustZoo(t, "tenant", "user", "add", "acme", "--upstream-user", "frank@corp", "--as", "frank")
	defer mustZoo(t, "tenant", "user", "remove", "acme", "--upstream-user", "frank@corp")
	acme, err := translate.NewTenant("acme")
	require.NoError(t, err)
	name := users.UserGrantName(acme, "frank@corp")
	cfg := rest.CopyConfig(framework.Cluster().Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "zoo:acme:admin", Groups: []string{"zoo:tenant:acme", "zoo:admins"}}
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	rbac := client.RbacV1()

	role, err := framework.AdminClient(t).RbacV1().ClusterRoles().Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	role.Rules[0].ResourceNames = []string{"zoo:beta:admin"}
	_, err = rbac.ClusterRoles().Update(t.Context(), role, metav1.UpdateOptions{})
	assert.True(t, refused(err), "rewrite the grant's role: %v", err)
	err = rbac.ClusterRoles().Delete(t.Context(), name, metav1.DeleteOptions{})
	assert.True(t, refused(err), "delete the grant's role: %v", err)
	err = rbac.ClusterRoleBindings().Delete(t.Context(), name, metav1.DeleteOptions{})
	assert.True(t, refused(err), "delete the grant's binding: %v", err)
	binding, err := framework.AdminClient(t).RbacV1().ClusterRoleBindings().Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	binding.Subjects[0].Name = "zoo:acme:admin"
	_, err = rbac.ClusterRoleBindings().Update(t.Context(), binding, metav1.UpdateOptions{})
	assert.True(t, refused(err), "rebind the grant: %v", err)
	_, err = rbac.ClusterRoleBindings().Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err, "documented: tenant administrators read ClusterRoleBindings upstream, and so the granted upstream users' names")
	got, err := framework.AdminClient(t).RbacV1().ClusterRoles().Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"zoo:acme:frank"}, got.Rules[0].ResourceNames)
}

// refused reports whether the upstream refused a request: RBAC (Forbidden)
// or an admission policy (Forbidden or Invalid).
func refused(err error) bool { return apierrors.IsForbidden(err) || apierrors.IsInvalid(err) }
