package admissionrules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestServerLabelValidations: TenantPolicy carries the rules that confine
// ServerAggregateLabel, with every placeholder filled; the e2e tests in
// test/e2e/tenant (TestServerAggregateLabelConfined) prove them against the
// API server.
func TestServerLabelValidations(t *testing.T) {
	raw, err := yaml.Marshal(tenantPolicy())
	require.NoError(t, err)
	assert.NotRegexp(t, `\$[A-Z]+`, string(raw))
	var found int
	for _, v := range tenantPolicy().Spec.Validations {
		if strings.Contains(v.Expression, tenantapi.ServerAggregateLabel) {
			found++
			assert.True(t, strings.HasPrefix(v.Expression, "!variables.judged || "))
		}
	}
	assert.Equal(t, 3, found, "the label's kinds, a labeled role's rules, aggregation rules selecting it")
}

// TestTenantAndIdentityPoliciesNameTheirSubjects: zoo-tenant judges by the
// tenant label, zoo-identity by kubectl-zoo's API group.
func TestTenantAndIdentityPoliciesNameTheirSubjects(t *testing.T) {
	tenantPolicy, _ := yaml.Marshal(tenantPolicy())
	assert.Contains(t, string(tenantPolicy), translate.TenantLabel)
	identity, _ := yaml.Marshal(identityPolicy())
	assert.Contains(t, string(identity), translate.APIGroup)
}
