package install

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// TestInstallObjects checks the invariants of what install applies: every
// object converts, is labeled as kubectl-zoo's, is named outside every
// tenant's prefix, and the CEL carries the shared names (no placeholder
// left).
func TestInstallObjects(t *testing.T) {
	objs := InstallObjects(admissionrules.InstallConfig{})
	require.Len(t, objs, 31)
	for i, obj := range objs {
		u, err := upstream.ToUnstructured(obj)
		require.NoError(t, err)
		if i == 0 {
			assert.Equal(t, "CustomResourceDefinition", u.GetKind(), "the CRD is applied first")
		}
		assert.Equal(t, tenantapi.ManagedByValue, u.GetLabels()[tenantapi.ManagedByLabel], u.GetName())
		if u.GetKind() != "CustomResourceDefinition" {
			assert.True(t, strings.HasPrefix(u.GetName(), "zoo-"), u.GetName())
			_, _, isTenant := translate.SplitUpstreamName(u.GetName())
			assert.False(t, isTenant, "%s must not parse as a tenant's name", u.GetName())
		}
		_, hasStatus := u.Object["status"]
		assert.False(t, hasStatus, u.GetName())
		raw, err := yaml.Marshal(u.Object)
		require.NoError(t, err)
		assert.NotRegexp(t, `\$[A-Z]+`, string(raw), "unreplaced CEL placeholder in %s", u.GetName())
		switch {
		case u.GetKind() != "ValidatingAdmissionPolicy":
		case u.GetName() == admissionrules.PropagatorName: // it judges the propagator identity only
			assert.Contains(t, string(raw), "system:serviceaccount:zoo-system:zoo-propagator")
		case u.GetName() != admissionrules.PriorityPolicy && u.GetName() != admissionrules.PolicyObjectsPolicy && u.GetName() != admissionrules.IngressHostsPolicy: // it judges namespaces, not identities
			assert.Contains(t, string(raw), translate.TenantGroupPrefix)
		}
		if u.GetKind() == "ValidatingAdmissionPolicy" && u.GetName() == admissionrules.PriorityPolicy {
			assert.Contains(t, string(raw), translate.TenantLabel)
		}
	}
}

func TestTenantCRDRefusesReservedNames(t *testing.T) {
	crd := TenantCRD()
	rules := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations
	require.Len(t, rules, 2)
	assert.Equal(t, "self.metadata.name.matches('^[a-z][a-z0-9]{0,11}$')", rules[0].Rule)
	for _, name := range []string{"kube", "system", "tenant", "zoo"} {
		assert.Contains(t, rules[1].Rule, "'"+name+"'")
	}
	assert.Equal(t, "Cluster", string(crd.Spec.Scope))
	assert.NotNil(t, crd.Spec.Versions[0].Subresources.Status)
}
