package install

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestServerClusterRoleAggregates: the server's ClusterRole holds no rules
// of its own; it aggregates the roles labeled ServerAggregateLabel, of which
// install applies one (the fixed rights) before it.
func TestServerClusterRoleAggregates(t *testing.T) {
	role := ServerClusterRole()
	assert.Empty(t, role.Rules)
	require.NotNil(t, role.AggregationRule)
	assert.Equal(t, []metav1.LabelSelector{{MatchLabels: map[string]string{tenantapi.ServerAggregateLabel: "true"}}}, role.AggregationRule.ClusterRoleSelectors)
	base := ServerBaseClusterRole()
	assert.Equal(t, "true", base.Labels[tenantapi.ServerAggregateLabel])
	assert.Nil(t, base.AggregationRule)
	assert.Equal(t, tenantapi.ServerName, ServerClusterRoleBinding().RoleRef.Name)
	rbac := ServerRBAC()
	require.GreaterOrEqual(t, len(rbac), 3)
	assert.Equal(t, tenantapi.ServerBaseName, rbac[0].(*rbacv1.ClusterRole).Name, "the fixed rights first")
	assert.Equal(t, tenantapi.ServerName, rbac[1].(*rbacv1.ClusterRole).Name)
}

func TestCRDServerClusterRole(t *testing.T) {
	acme := translate.MustTenant("acme")
	good := platformobj.ServedCRD{Name: "widgets.acme-x.io", UID: "u1", Group: "acme-x.io", Plural: "widgets", Subresources: []string{"status", "scale", "status"}}
	role, err := platformobj.CRDServerClusterRole(acme, good)
	require.NoError(t, err)
	assert.Equal(t, "acme-zoo-crd-widgets.x.io", role.Name, "a name of the tenant's own, shown to it as zoo-crd-<CRD name>")
	assert.Equal(t, "acme", role.Labels[translate.TenantLabel])
	assert.Equal(t, "true", role.Labels[tenantapi.ServerAggregateLabel])
	assert.Nil(t, role.AggregationRule)
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{"acme-x.io"}, Resources: []string{"widgets", "widgets/scale", "widgets/status"},
		Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}}}, role.Rules)
	require.Len(t, role.OwnerReferences, 1)
	assert.Equal(t, metav1.OwnerReference{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.acme-x.io", UID: "u1"},
		role.OwnerReferences[0], "the garbage collector deletes it with the CRD")

	for _, tc := range []struct {
		name string
		crd  platformobj.ServedCRD
		want string
	}{
		{"another tenant's group", platformobj.ServedCRD{Name: "widgets.beta-x.io", UID: "u", Group: "beta-x.io", Plural: "widgets"}, "does not belong to tenant"},
		{"a group with the prefix only", platformobj.ServedCRD{Name: "widgets.acme-", UID: "u", Group: "acme-", Plural: "widgets"}, "does not belong to tenant"},
		{"a core group", platformobj.ServedCRD{Name: "secrets", UID: "u", Group: "", Plural: "secrets"}, "does not belong to tenant"},
		{"a wildcard", platformobj.ServedCRD{Name: "x", UID: "u", Group: "*", Plural: "*"}, "does not belong to tenant"},
		{"no plural", platformobj.ServedCRD{Name: "x.acme-x.io", UID: "u", Group: "acme-x.io"}, "want a plural"},
		{"a plural with a subresource", platformobj.ServedCRD{Name: "x.acme-x.io", UID: "u", Group: "acme-x.io", Plural: "widgets/status"}, "want a plural"},
		{"no uid", platformobj.ServedCRD{Name: "x.acme-x.io", Group: "acme-x.io", Plural: "widgets"}, "want a plural and a uid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := platformobj.CRDServerClusterRole(acme, tc.crd)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
