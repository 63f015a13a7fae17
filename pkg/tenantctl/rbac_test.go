package tenantctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestNamespaceRBAC(t *testing.T) {
	tenant := &Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: TenantSpec{Admins: []string{"bob", "alice", "bob"}}}
	for _, tc := range []struct {
		namespace string
		wantErr   bool
	}{
		{"acme-default", false},
		{"acme-x-y", false},
		{"acmeb-default", true},
		{"acme", true},
		{"acme-", true},
		{"kube-system", true},
		{"default", true},
	} {
		t.Run(tc.namespace, func(t *testing.T) {
			rbs, err := NamespaceRBAC(tenant, tc.namespace)
			if tc.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "does not belong to tenant")
				return
			}
			require.NoError(t, err)
			require.Len(t, rbs, 1)
			rb := rbs[0]
			assert.Equal(t, tc.namespace, rb.Namespace)
			assert.Equal(t, NamespaceAdminsRoleBinding, rb.Name)
			assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: TenantAdminClusterRole}, rb.RoleRef)
			assert.Equal(t, []rbacv1.Subject{
				{APIGroup: rbacv1.GroupName, Kind: "User", Name: "zoo:acme:alice"},
				{APIGroup: rbacv1.GroupName, Kind: "User", Name: "zoo:acme:bob"},
			}, rb.Subjects)
			assert.Equal(t, "acme", rb.Labels[translate.TenantLabel])
		})
	}
	_, err := NamespaceRBAC(&Tenant{ObjectMeta: metav1.ObjectMeta{Name: "kube"}}, "kube-system")
	assert.ErrorContains(t, err, "reserved")
}

func TestTenantRBAC(t *testing.T) {
	roles, bindings, err := TenantRBAC(&Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: TenantSpec{Admins: []string{"admin"}}})
	require.NoError(t, err)
	require.Len(t, roles, 1)
	require.Len(t, bindings, 2)
	assert.Equal(t, "zoo-tenant-acme", roles[0].Name)
	assert.Equal(t, []string{"acme"}, roles[0].Rules[0].ResourceNames, "membership must name only the tenant's own record")
	assert.Equal(t, "zoo:tenant:acme", bindings[0].Subjects[0].Name)
	assert.Equal(t, "zoo-tenant-acme-admins", bindings[1].Name)
	assert.Equal(t, TenantClusterClusterRole, bindings[1].RoleRef.Name)
	assert.Equal(t, "zoo:acme:admin", bindings[1].Subjects[0].Name)
}

// TestTenantClusterGrantsNoNamespacedReads: the cluster-wide role of tenant
// admins must never hold a namespaced resource except the create of
// rolebindings that NamespaceRBAC needs (reads are confined by RBAC alone).
func TestTenantClusterGrantsNoNamespacedReads(t *testing.T) {
	clusterScoped := map[string]bool{
		"namespaces": true, "persistentvolumes": true, "nodes": true, "clusterroles": true, "clusterrolebindings": true,
		"customresourcedefinitions": true, "storageclasses": true, "ingressclasses": true, "runtimeclasses": true,
		"priorityclasses": true, "csidrivers": true, "csinodes": true, "volumeattributesclasses": true,
		"ipaddresses": true, "servicecidrs": true, "resourceslices": true, "deviceclasses": true,
	}
	var role *rbacv1.ClusterRole
	for _, r := range InstallClusterRoles() {
		if r.Name == TenantClusterClusterRole {
			role = r
		}
	}
	require.NotNil(t, role)
	for _, rule := range role.Rules {
		for _, g := range rule.APIGroups {
			assert.NotEqual(t, "*", g)
			assert.NotEqual(t, "admissionregistration.k8s.io", g, "tenants must never touch admission configuration")
			assert.NotEqual(t, translate.APIGroup, g)
		}
		for _, r := range rule.Resources {
			if r == "rolebindings" {
				assert.Equal(t, []string{"create"}, rule.Verbs)
				continue
			}
			assert.True(t, clusterScoped[r], "namespaced resource %q granted cluster-wide", r)
		}
	}
}

func TestTenantClusterRoles(t *testing.T) {
	view := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}
	roles := TenantClusterRoles(translate.MustTenant("acme"), func(name string) []rbacv1.PolicyRule {
		if name == "view" {
			return view
		}
		return nil
	})
	var names []string
	for _, r := range roles {
		names = append(names, r.Name)
		assert.Equal(t, "acme", r.Labels[translate.TenantLabel])
		assert.Nil(t, r.AggregationRule)
	}
	assert.Equal(t, []string{"acme-cluster-admin", "acme-admin", "acme-edit", "acme-view"}, names)
	assert.Equal(t, view, roles[3].Rules)
	assert.Equal(t, []string{"*"}, roles[0].Rules[0].Verbs)
}
