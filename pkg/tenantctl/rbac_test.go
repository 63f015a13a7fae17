package tenantctl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestNamespaceRBAC(t *testing.T) {
	tenant := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: tenantapi.TenantSpec{Admins: []string{"bob", "alice", "bob"}}}
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
			rbs, err := platformobj.NamespaceRBAC(tenant, tc.namespace)
			if tc.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "does not belong to tenant")
				return
			}
			require.NoError(t, err)
			require.Len(t, rbs, 1)
			rb := rbs[0]
			assert.Equal(t, tc.namespace, rb.Namespace)
			assert.Equal(t, tenantapi.NamespaceAdminsRoleBinding, rb.Name)
			assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantAdminClusterRole}, rb.RoleRef)
			assert.Equal(t, []rbacv1.Subject{
				{APIGroup: rbacv1.GroupName, Kind: "User", Name: "zoo:acme:alice"},
				{APIGroup: rbacv1.GroupName, Kind: "User", Name: "zoo:acme:bob"},
			}, rb.Subjects)
			assert.Equal(t, "acme", rb.Labels[translate.TenantLabel])
		})
	}
	_, err := platformobj.NamespaceRBAC(&tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "kube"}}, "kube-system")
	assert.ErrorContains(t, err, "reserved")
}

// TestTenantRBAC: a tenant's membership is one RoleBinding in its own
// kube-system, which names the registry identity only; nothing per tenant is
// cluster-wide.
func TestTenantRBAC(t *testing.T) {
	for _, level := range translate.PodSecurityLevels {
		t.Run(level, func(t *testing.T) {
			rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme", Annotations: map[string]string{translate.PodSecurityLevelAnnotation: level}},
				Spec: tenantapi.TenantSpec{Admins: []string{"admin"}}}
			rb, err := platformobj.TenantRBAC(rec)
			require.NoError(t, err)
			assert.Equal(t, "acme-kube-system", rb.Namespace)
			assert.Equal(t, tenantapi.MembershipRoleBinding, rb.Name)
			assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "zoo-tenant-member-" + level}, rb.RoleRef)
			assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: tenantapi.RegistryNamespace, Name: tenantapi.RegistryServiceAccount}}, rb.Subjects)
			assert.Equal(t, "acme", rb.Labels[translate.TenantLabel])
		})
	}
}

// TestInstallRBACIsConstant: the ClusterRoles and ClusterRoleBindings of the
// security model do not depend on any tenant, and the one binding grants
// the cluster-scoped rights to the administrators' group only, the other
// the propagator's rights to the propagator identity only, the last the
// sleep rights to the sleep user only.
func TestInstallRBACIsConstant(t *testing.T) {
	bindings := install.InstallClusterRoleBindings()
	require.Len(t, bindings, 3)
	assert.Equal(t, install.SleepClusterRole, bindings[2].RoleRef.Name)
	assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: translate.SleepUser}}, bindings[2].Subjects)
	assert.Equal(t, tenantapi.TenantClusterClusterRole, bindings[0].RoleRef.Name)
	assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "Group", Name: translate.AdminsGroup}}, bindings[0].Subjects)
	assert.Equal(t, admissionrules.PropagatorName, bindings[1].RoleRef.Name)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "zoo-system", Name: "zoo-propagator"}}, bindings[1].Subjects)
	members := map[string]*rbacv1.ClusterRole{}
	for _, r := range install.InstallClusterRoles() {
		members[r.Name] = r
	}
	for _, level := range translate.PodSecurityLevels {
		r := members[tenantapi.MembershipClusterRole(level)]
		require.NotNil(t, r, level)
		require.Len(t, r.Rules, 2)
		assert.Equal(t, []string{tenantapi.TenantResource}, r.Rules[0].Resources)
		assert.Equal(t, []string{"get"}, r.Rules[0].Verbs)
		assert.Equal(t, []string{admissionrules.PodSecurityLevelResource}, r.Rules[1].Resources)
		assert.Equal(t, []string{level}, r.Rules[1].ResourceNames, "a member may create namespaces at its own level only")
		assert.Equal(t, []string{"use"}, r.Rules[1].Verbs)
	}
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
	for _, r := range install.InstallClusterRoles() {
		if r.Name == tenantapi.TenantClusterClusterRole {
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
			r, _, _ = strings.Cut(r, "/") // a subresource's parent
			if r == "rolebindings" {
				assert.Equal(t, []string{"create"}, rule.Verbs)
				continue
			}
			assert.True(t, clusterScoped[r], "namespaced resource %q granted cluster-wide", r)
		}
	}
}

// TestTenantClusterRoles: the tenant's admin, edit and view aggregate as
// the cluster's do, but only the tenant's own roles (TenantLabel and the
// tenant's aggregation keys), never carry the cluster's aggregation keys,
// and hold the cluster's rules through their bases.
func TestTenantClusterRoles(t *testing.T) {
	rules := func(r string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{r}, Verbs: []string{"get"}}}
	}
	cluster := map[string]*rbacv1.ClusterRole{
		"admin": {Rules: rules("secrets")},
		"edit":  {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true", "kubernetes.io/bootstrapping": "rbac-defaults"}}, Rules: rules("pods")},
		"view":  {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true"}}, Rules: rules("configmaps")},
	}
	roles := platformobj.TenantClusterRoles(translate.MustTenant("acme"), func(name string) *rbacv1.ClusterRole { return cluster[name] })
	byName := map[string]*rbacv1.ClusterRole{}
	var names []string
	for _, r := range roles {
		names = append(names, r.Name)
		byName[r.Name] = r
		assert.Equal(t, "acme", r.Labels[translate.TenantLabel])
		for k := range r.Labels {
			assert.NotContains(t, k, "rbac.authorization.k8s.io/", "%s: the cluster's admin, edit and view would aggregate it", r.Name)
		}
	}
	assert.Equal(t, []string{"acme-cluster-admin", "acme-admin", "acme-system:aggregate-to-admin", "acme-edit", "acme-system:aggregate-to-edit",
		"acme-view", "acme-system:aggregate-to-view"}, names)
	assert.Equal(t, []string{"*"}, byName["acme-cluster-admin"].Rules[0].Verbs)
	assert.Nil(t, byName["acme-cluster-admin"].AggregationRule)
	for _, name := range []string{"admin", "edit", "view"} {
		t.Run(name, func(t *testing.T) {
			agg, base := byName["acme-"+name], byName["acme-system:aggregate-to-"+name]
			require.NotNil(t, agg.AggregationRule)
			assert.Empty(t, agg.Rules, "the aggregation controller fills them")
			assert.Equal(t, []metav1.LabelSelector{{MatchLabels: map[string]string{
				translate.TenantLabel: "acme", "rbac.zoo.kubectl-zoo.io/aggregate-to-" + name: "true",
			}}}, agg.AggregationRule.ClusterRoleSelectors)
			assert.Equal(t, cluster[name].Rules, base.Rules)
			assert.Nil(t, base.AggregationRule)
			assert.Equal(t, "true", base.Labels["rbac.zoo.kubectl-zoo.io/aggregate-to-"+name], "the base aggregates into its role")
		})
	}
	assert.Equal(t, "true", byName["acme-edit"].Labels["rbac.zoo.kubectl-zoo.io/aggregate-to-admin"], "edit aggregates into admin, as the cluster's")
	assert.Equal(t, "true", byName["acme-view"].Labels["rbac.zoo.kubectl-zoo.io/aggregate-to-edit"], "view aggregates into edit, as the cluster's")
	assert.NotContains(t, byName["acme-edit"].Labels, "kubernetes.io/bootstrapping", "only the aggregation labels are copied")
}

// TestTenantClusterStatusRights: tenant admins may read and write the status
// of their CRDs, as a cluster admin does, and never the status the
// platform's controllers own (namespaces, persistent volumes), nor anything
// else on a status.
func TestTenantClusterStatusRights(t *testing.T) {
	var role *rbacv1.ClusterRole
	for _, r := range install.InstallClusterRoles() {
		if r.Name == tenantapi.TenantClusterClusterRole {
			role = r
		}
	}
	require.NotNil(t, role)
	granted := map[string][]string{}
	for _, rule := range role.Rules {
		for _, r := range rule.Resources {
			if strings.HasSuffix(r, "/status") {
				granted[rule.APIGroups[0]+"/"+r] = rule.Verbs
			}
		}
	}
	assert.Equal(t, map[string][]string{"apiextensions.k8s.io/customresourcedefinitions/status": {"get", "update", "patch"}}, granted)
}
