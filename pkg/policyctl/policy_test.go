package policyctl

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestPolicyOfRoundTrips(t *testing.T) {
	rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}}
	p, err := tenantapi.PolicyOf(rec)
	require.NoError(t, err)
	assert.Equal(t, policy.Policy{}, p)

	want := policy.Policy{PodSecurity: "restricted", RateLimit: &policy.RateLimit{QPS: 5, Burst: 10, MaxInflight: 2}}
	require.NoError(t, tenantapi.SetPolicy(rec, want))
	got, err := tenantapi.PolicyOf(rec)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	rec.Spec.Policy = &apiextensionsv1.JSON{Raw: []byte(`{"podSecurity":"lax"}`)}
	_, err = tenantapi.PolicyOf(rec)
	assert.ErrorContains(t, err, "tenant acme: spec.policy: podSecurity")
}

func TestEffectivePolicy(t *testing.T) {
	for name, tc := range map[string]struct {
		rec  tenantapi.Tenant
		want policy.Policy
	}{
		"no policy, no annotation: the built-in default": {rec: tenantapi.Tenant{}, want: policy.Default()},
		"legacy annotation only": {
			rec:  tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{translate.PodSecurityLevelAnnotation: "privileged"}}},
			want: policy.Policy{PodSecurity: "privileged", NetworkIsolation: policy.NetworkIsolationTenant},
		},
		"spec.policy wins over the annotation": {
			rec: tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{translate.PodSecurityLevelAnnotation: "privileged"}},
				Spec: tenantapi.TenantSpec{Policy: &apiextensionsv1.JSON{Raw: []byte(`{"podSecurity":"restricted","priorityClasses":["gold"]}`)}}},
			want: policy.Policy{PodSecurity: "restricted", NetworkIsolation: policy.NetworkIsolationTenant, PriorityClasses: []string{"gold"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			tc.rec.Name = "acme"
			got, err := tenantapi.EffectivePolicy(&tc.rec)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			level, err := tenantapi.PodSecurityLevel(&tc.rec)
			require.NoError(t, err)
			assert.Equal(t, tc.want.PodSecurity, level)
		})
	}
	bad := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme", Annotations: map[string]string{translate.PodSecurityLevelAnnotation: "lax"}}}
	_, err := tenantapi.EffectivePolicy(bad)
	assert.ErrorContains(t, err, "annotation "+translate.PodSecurityLevelAnnotation)
}

// TestRegistryGrants: each grant (PriorityClasses, external names) names
// exactly the names, is bound only to the registry identity in the
// tenant's kube-system, and its ClusterRole lies outside the tenant's
// prefix and carries no TenantLabel (so the tenant can neither change it
// nor aggregate it into a role of its own).
func TestRegistryGrants(t *testing.T) {
	acme := translate.MustTenant("acme")
	for _, tc := range []struct {
		name, role, label, resource string
		grant                       func(translate.Tenant, []string) (*rbacv1.ClusterRole, *rbacv1.RoleBinding)
	}{
		{"priority classes", "zoo-tenant-priority-acme", PriorityGrantTenantLabel, admissionrules.PriorityClassResource, PriorityGrant},
		{"external names", "zoo-tenant-external-names-acme", ExternalNameGrantTenantLabel, admissionrules.ExternalNameResource, ExternalNameGrant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			role, binding := tc.grant(acme, []string{"gold", "silver"})
			assert.Equal(t, tc.role, role.Name)
			assert.False(t, acme.Owns(role.Name))
			assert.Equal(t, "acme", role.Labels[tc.label])
			assert.NotContains(t, role.Labels, translate.TenantLabel, "the platform's role: no aggregation selector of the tenant selects it")
			require.Len(t, role.Rules, 1)
			assert.Equal(t, []string{"gold", "silver"}, role.Rules[0].ResourceNames)
			assert.Equal(t, []string{"use"}, role.Rules[0].Verbs)
			assert.Equal(t, []string{tc.resource}, role.Rules[0].Resources)
			assert.Equal(t, tenantapi.MembershipNamespace(acme), binding.Namespace)
			assert.Equal(t, role.Name, binding.RoleRef.Name)
			require.Len(t, binding.Subjects, 1)
			assert.Equal(t, tenantapi.RegistryServiceAccount, binding.Subjects[0].Name)
			assert.Equal(t, tenantapi.RegistryNamespace, binding.Subjects[0].Namespace)
		})
	}
}
