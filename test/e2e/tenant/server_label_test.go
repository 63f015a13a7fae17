package tenant_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// labeledRole is a ClusterRole of tenant acme that grants its rules to the
// server (ServerAggregateLabel).
func labeledRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{translate.TenantLabel: "acme", tenantapi.ServerAggregateLabel: "true"}},
		Rules:      rules,
	}
}

// TestServerAggregateLabelConfined (issue 13): the label that makes the
// aggregated ClusterRole zoo-server collect a role's rules is a tenant's to
// set only on a ClusterRole naming its own API groups. Directly upstream,
// acme's admin (who may escalate ClusterRoles) cannot use it to give the
// server rights on beta's group, core secrets, every group or non-resource
// URLs, cannot put it on another kind or on another tenant's or the
// platform's ClusterRole, and cannot aggregate the server's roles into a
// role of its own; a ServiceAccount with every right in acme-default cannot
// either. After all of it the server still cannot read secrets.
func TestServerAggregateLabelConfined(t *testing.T) {
	install(t)
	mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig,
			"install", "--server", "--uninstall")
	})
	createTenant(t, "acme")
	createTenant(t, "beta")
	acme, _ := impersonating(t, "zoo:acme:admin", "zoo:tenant:acme", translate.AdminsGroup)
	saCfg, err := clientcmd.BuildConfigFromFlags("", serviceAccountKubeconfig(t))
	require.NoError(t, err)
	sa, err := kubernetes.NewForConfig(saCfg)
	require.NoError(t, err)
	ctx := t.Context()
	all := []string{"*"}
	own := rbacv1.PolicyRule{APIGroups: []string{"acme-lbl.example.org"}, Resources: []string{"gadgets"}, Verbs: []string{"get", "list"}}
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}}

	refused := []struct {
		name string
		role *rbacv1.ClusterRole
	}{
		{"beta's group", labeledRole("acme-lbl-beta", rbacv1.PolicyRule{APIGroups: []string{"beta-lbl.example.org"}, Resources: all, Verbs: all})},
		{"core secrets", labeledRole("acme-lbl-secrets", secrets)},
		{"its own group and core secrets", labeledRole("acme-lbl-mixed", own, secrets)},
		{"its own group and core secrets in one rule", labeledRole("acme-lbl-onerule",
			rbacv1.PolicyRule{APIGroups: []string{"acme-lbl.example.org", ""}, Resources: all, Verbs: all})},
		{"every group", labeledRole("acme-lbl-star", rbacv1.PolicyRule{APIGroups: all, Resources: all, Verbs: all})},
		{"the bare prefix", labeledRole("acme-lbl-prefix", rbacv1.PolicyRule{APIGroups: []string{"acme-"}, Resources: all, Verbs: all})},
		{"non-resource URLs", labeledRole("acme-lbl-urls", own, rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}})},
		{"kubectl-zoo's group", labeledRole("acme-lbl-zoo", rbacv1.PolicyRule{APIGroups: []string{translate.APIGroup}, Resources: all, Verbs: all})},
		{"an aggregationRule (the aggregation controller would fill its rules)", func() *rbacv1.ClusterRole {
			r := labeledRole("acme-lbl-agg")
			r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{translate.TenantLabel: "acme"}}}}
			return r
		}()},
		{"a label value other than true", func() *rbacv1.ClusterRole {
			r := labeledRole("acme-lbl-false", secrets)
			r.Labels[tenantapi.ServerAggregateLabel] = "false"
			return r
		}()},
		{"an aggregationRule selecting the label", &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "acme-lbl-copy", Labels: map[string]string{translate.TenantLabel: "acme"}},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{
				MatchLabels: map[string]string{translate.TenantLabel: "acme", tenantapi.ServerAggregateLabel: "true"}}}},
		}},
		{"an aggregationRule selecting the label by expression", &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "acme-lbl-copyexpr", Labels: map[string]string{translate.TenantLabel: "acme"}},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{
				MatchLabels:      map[string]string{translate.TenantLabel: "acme"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: tenantapi.ServerAggregateLabel, Operator: metav1.LabelSelectorOpExists}}}}},
		}},
	}
	for _, tc := range refused {
		t.Run("acme's admin may not create a ClusterRole with "+tc.name, func(t *testing.T) {
			_, err := acme.RbacV1().ClusterRoles().Create(ctx, tc.role, metav1.CreateOptions{})
			require.True(t, apierrors.IsForbidden(err), "want Forbidden, got %v", err)
			assert.Contains(t, err.Error(), tenantapi.ServerAggregateLabel, "refused for the label")
		})
		t.Run("acme's ServiceAccount may not create a ClusterRole with "+tc.name, func(t *testing.T) {
			_, err := sa.RbacV1().ClusterRoles().Create(ctx, tc.role, metav1.CreateOptions{})
			require.True(t, apierrors.IsForbidden(err), "want Forbidden, got %v", err)
		})
	}

	labelPatch := []byte(`{"metadata":{"labels":{"` + tenantapi.ServerAggregateLabel + `":"true"}}}`)
	t.Run("the label on other kinds", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lbl", Labels: map[string]string{tenantapi.ServerAggregateLabel: "true"}}}
		for name, client := range map[string]kubernetes.Interface{"acme's admin": acme, "acme's ServiceAccount": sa} {
			_, err := client.CoreV1().ConfigMaps("acme-default").Create(ctx, cm, metav1.CreateOptions{})
			assert.True(t, apierrors.IsForbidden(err), "%s: a ConfigMap: %v", name, err)
			_, err = client.RbacV1().Roles("acme-default").Create(ctx, &rbacv1.Role{ObjectMeta: cm.ObjectMeta, Rules: []rbacv1.PolicyRule{secrets}}, metav1.CreateOptions{})
			assert.True(t, apierrors.IsForbidden(err), "%s: a Role: %v", name, err)
		}
	})
	for _, name := range []string{tenantapi.TenantAdminClusterRole, "beta-view", "acme-view", "cluster-admin", "admin"} {
		t.Run("acme's admin may not label the ClusterRole "+name, func(t *testing.T) {
			_, err := acme.RbacV1().ClusterRoles().Patch(ctx, name, types.MergePatchType, labelPatch, metav1.PatchOptions{})
			require.True(t, apierrors.IsForbidden(err), "want Forbidden, got %v", err)
			_, err = sa.RbacV1().ClusterRoles().Patch(ctx, name, types.MergePatchType, labelPatch, metav1.PatchOptions{})
			require.True(t, apierrors.IsForbidden(err), "want Forbidden, got %v", err)
		})
	}

	// What the label is for: a ClusterRole naming acme's own groups only.
	good, err := acme.RbacV1().ClusterRoles().Create(ctx, labeledRole("acme-lbl-good", own), metav1.CreateOptions{})
	require.NoError(t, err, "a ClusterRole on acme's own group may grant the server its rules")
	t.Run("acme's admin may not widen its labeled ClusterRole", func(t *testing.T) {
		for _, patch := range []string{
			`{"rules":[{"apiGroups":[""],"resources":["secrets"],"verbs":["get"]}]}`,
			`{"rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]}`,
			`{"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"` + translate.TenantLabel + `":"acme"}}]}}`,
		} {
			_, err := acme.RbacV1().ClusterRoles().Patch(ctx, good.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			assert.True(t, apierrors.IsForbidden(err), "%s: %v", patch, err)
		}
	})
	require.Eventually(t, func() bool { return framework.ServerMay(t, "list", "acme-lbl.example.org", "gadgets") }, 60*time.Second, 200*time.Millisecond,
		"the aggregation controller gives the server acme's role")
	for _, tc := range []struct{ group, resource string }{
		{"", "secrets"}, {"beta-lbl.example.org", "gadgets"}, {"acme-lbl.example.org", "other"}, {"rbac.authorization.k8s.io", "clusterroles"},
	} {
		assert.False(t, framework.ServerMay(t, "list", tc.group, tc.resource), "the server may list %s.%s", tc.resource, tc.group)
	}
	assert.False(t, framework.ServerMay(t, "get", "", "secrets"))
	assert.False(t, framework.ServerMay(t, "update", "acme-lbl.example.org", "gadgets"), "only the verbs acme's role names")

	// Installing again leaves the aggregated rules to the aggregation
	// controller: install never owns (so never empties) them.
	mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	server, err := framework.AdminClient(t).RbacV1().ClusterRoles().Get(ctx, tenantapi.ServerName, metav1.GetOptions{})
	require.NoError(t, err)
	for _, mf := range server.ManagedFields {
		if mf.Manager == tenantapi.FieldManager && mf.FieldsV1 != nil {
			assert.NotContains(t, string(mf.FieldsV1.Raw), `"f:rules"`)
		}
	}
	assert.True(t, framework.ServerMay(t, "list", "acme-lbl.example.org", "gadgets"))

	// The tenant's deletion removes the role (and so the server's right).
	mustZoo(t, "tenant", "delete", "acme")
	_, err = framework.AdminClient(t).RbacV1().ClusterRoles().Get(ctx, good.Name, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "tenant delete leaves %s: %v", good.Name, err)
	require.Eventually(t, func() bool { return !framework.ServerMay(t, "list", "acme-lbl.example.org", "gadgets") }, 60*time.Second, 200*time.Millisecond)
}

// tenantClusterCRD creates, as tenant's admin directly upstream, the
// cluster-scoped CRD plural.group (upstream group) and the
// CRDServerClusterRole the proxy writes for it as the tenant; it returns the
// resource and a func that deletes the CRD.
func tenantClusterCRD(t *testing.T, tenant, group, plural string) (schema.GroupVersionResource, func()) {
	t.Helper()
	admin, cfg := impersonating(t, "zoo:"+tenant+":admin", "zoo:tenant:"+tenant, translate.AdminsGroup)
	crds := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	crd, err := crds.Create(t.Context(), &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Labels: map[string]string{translate.TenantLabel: tenant}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: "Thing"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	role, err := platformobj.CRDServerClusterRole(translate.MustTenant(tenant), platformobj.ServedCRD{Name: crd.Name, UID: crd.UID, Group: group, Plural: plural})
	require.NoError(t, err)
	_, err = admin.RbacV1().ClusterRoles().Create(t.Context(), role, metav1.CreateOptions{})
	require.NoError(t, err, "the tenant itself writes the server's ClusterRole of its CRD")
	return schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}, func() {
		require.NoError(t, crds.Delete(t.Context(), crd.Name, metav1.DeleteOptions{}))
	}
}
