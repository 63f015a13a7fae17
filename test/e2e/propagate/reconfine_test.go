package propagate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestInstallReconfinesTenantAdmission: a tenant's admission policy stored
// by an earlier version carries that version's match condition, which lets
// it judge kubectl-zoo's policy objects in the tenant's namespaces; `kubectl
// zoo install` (an upgrade) rewrites it to this version's, and leaves the
// tenant's own conditions and every other field as they were.
func TestInstallReconfinesTenantAdmission(t *testing.T) {
	createTenant(t, "pold")
	admin := framework.AdminClient(t)
	ctx := t.Context()
	earlier := `(has(request.namespace) && request.namespace != '') || (has(request.name) && request.name.startsWith('pold-')) || (has(request.userInfo.groups) && 'zoo:tenant:pold' in request.userInfo.groups)`
	vap := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "pold-deny", Labels: map[string]string{translate.TenantLabel: "pold"}},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
				Operations: []admissionv1.OperationType{admissionv1.Update},
				Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"resourcequotas"}},
			}}}},
			MatchConditions: []admissionv1.MatchCondition{{Name: "mine", Expression: "true"}, {Name: translate.TenantMatchCondition, Expression: earlier}},
			Validations:     []admissionv1.Validation{{Expression: "false"}},
		},
	}
	_, err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, vap, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, vap.Name, metav1.DeleteOptions{})
	})

	res := framework.Run(ctx, nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "install")
	require.NoError(t, res.Err, res.Stderr)

	got, err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, vap.Name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, got.Spec.MatchConditions, 2)
	assert.Equal(t, vap.Spec.MatchConditions[0], got.Spec.MatchConditions[0], "the tenant's own condition stays")
	assert.Equal(t, translate.TenantMatchCondition, got.Spec.MatchConditions[1].Name)
	assert.Contains(t, got.Spec.MatchConditions[1].Expression, translate.PropagatedFromLabel, "this version's condition")
	assert.Equal(t, vap.Spec.Validations, got.Spec.Validations)

	res = framework.Run(ctx, nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "install")
	require.NoError(t, res.Err, res.Stderr)
	again, err := admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, vap.Name, metav1.GetOptions{})
	require.NoError(t, err)
	// The generation, not the resourceVersion: the API server writes the
	// policy's status (its type checking) on its own.
	assert.Equal(t, got.Generation, again.Generation, "an install with nothing to re-confine changes nothing")
}
