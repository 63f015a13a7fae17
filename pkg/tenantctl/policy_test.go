package tenantctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

func TestPolicyOfRoundTrips(t *testing.T) {
	rec := &Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}}
	p, err := PolicyOf(rec)
	require.NoError(t, err)
	assert.Equal(t, policy.Policy{}, p)

	want := policy.Policy{PodSecurity: "restricted", RateLimit: &policy.RateLimit{QPS: 5, Burst: 10, MaxInflight: 2}}
	require.NoError(t, SetPolicy(rec, want))
	got, err := PolicyOf(rec)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	rec.Spec.Policy = &apiextensionsv1.JSON{Raw: []byte(`{"podSecurity":"lax"}`)}
	_, err = PolicyOf(rec)
	assert.ErrorContains(t, err, "tenant acme: spec.policy: podSecurity")
}
