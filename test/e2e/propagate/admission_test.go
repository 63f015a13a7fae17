package propagate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// denyPolicyKinds is a tenant's ValidatingAdmissionPolicy, and its binding,
// that refuses every write of ResourceQuotas, LimitRanges and
// NetworkPolicies in the tenant's namespaces.
const denyPolicyKinds = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny-policy-kinds}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["", "networking.k8s.io"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE", "DELETE"]
      resources: ["resourcequotas", "limitranges", "networkpolicies"]
  validations:
  - expression: "false"
    message: refused by the tenant's own policy
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny-policy-kinds}
spec:
  policyName: deny-policy-kinds
  validationActions: [Deny]
`

// TestTenantAdmissionLeavesThePolicyObjectsAlone: a tenant's own admission
// policy (or webhook) is confined to its namespaces, where kubectl-zoo keeps
// the policy's objects; it must not reach them. With a policy that refuses
// every write of those kinds in force (it refuses the tenant's own quota), a
// namespace made through serve still gets its policy objects before the
// create is answered, and a quota stored in the tenant's policy still
// reaches every namespace.
func TestTenantAdmissionLeavesThePolicyObjectsAlone(t *testing.T) {
	createTenant(t, "padm")
	s := serve(t, "padm")
	ctx := t.Context()
	res := kubectl(ctx, s.kubeconfig, denyPolicyKinds, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	require.Eventually(t, func() bool { // a dry run is judged, and stores nothing
		res = kubectl(ctx, s.kubeconfig, "", "create", "quota", "mine", "-n", "default", "--hard=pods=5", "--dry-run=server")
		return res.Err != nil
	}, 30*time.Second, 250*time.Millisecond, "the tenant's policy is in force: %s", res.Stdout)
	assert.Contains(t, res.Stderr, "refused by the tenant's own policy")

	res = kubectl(ctx, s.kubeconfig, "", "create", "namespace", "after")
	require.NoError(t, res.Err, res.Stderr)
	requirePolicyObjects(t, "padm", "padm-after", true, false) // no waiting

	setPolicy(t, "padm", policy.Policy{NetworkIsolation: policy.NetworkIsolationTenant,
		Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}})
	admin := framework.AdminClient(t)
	var total resource.Quantity
	for _, ns := range tenantNamespaces(t, "padm") {
		rq, err := admin.CoreV1().ResourceQuotas(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		require.NoError(t, err)
		total.Add(rq.Spec.Hard[corev1.ResourcePods])
	}
	assert.Equal(t, int64(10), total.Value(), "the split of the quota reached every namespace (%s)", total.String())
}
