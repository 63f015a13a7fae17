package zooserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/fairshare"
)

// TestTransformTenantKeepsRateLimit: the informer's copy of a record keeps
// its effective fair share, decoded once, deep-copyable; a record without
// one, or whose own fields try to set the kept one, limits nothing.
func TestTransformTenantKeepsRateLimit(t *testing.T) {
	record := func(spec string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		require.NoError(t, json.Unmarshal([]byte(`{"apiVersion":"zoo.kubectl-zoo.io/v1alpha1","kind":"Tenant","metadata":{"name":"acme"},"spec":`+spec+`}`), &u.Object))
		return u
	}
	forged := record(`{}`)
	forged.Object[rateLimitField] = map[string]any{"qps": int64(1)}
	for _, tc := range []struct {
		name string
		in   *unstructured.Unstructured
		want fairshare.Limits
	}{
		{"no policy", record(`{}`), fairshare.Limits{}},
		{"a policy without rate limit", record(`{"policy":{"podSecurity":"baseline"}}`), fairshare.Limits{}},
		{"qps, burst and max in-flight", record(`{"policy":{"rateLimit":{"qps":5,"burst":10,"maxInflight":3}}}`),
			fairshare.Limits{QPS: 5, Burst: 10, MaxInflight: 3}},
		{"max in-flight only", record(`{"policy":{"rateLimit":{"maxInflight":2}}}`), fairshare.Limits{MaxInflight: 2}},
		{"invalid elsewhere: the rate limit still holds", record(`{"policy":{"podSecurity":"nonsense","rateLimit":{"qps":5,"burst":1}}}`),
			fairshare.Limits{QPS: 5, Burst: 5}},
		{"a field named like the kept one is not the record's to set", forged, fairshare.Limits{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := transformTenant(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, limitsIn(out))
			assert.Equal(t, tc.want, limitsIn(out.(*unstructured.Unstructured).DeepCopy()), "deep copy")
		})
	}
}
