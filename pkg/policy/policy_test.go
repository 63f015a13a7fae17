package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseResourceList(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    corev1.ResourceList
		wantErr string
	}{
		{in: "", want: corev1.ResourceList{}},
		{in: "requests.cpu=4,limits.memory=8Gi,pods=50", want: corev1.ResourceList{
			"requests.cpu": resource.MustParse("4"), "limits.memory": resource.MustParse("8Gi"), "pods": resource.MustParse("50")}},
		{in: "pods", wantErr: `"pods" is not NAME=QUANTITY`},
		{in: "pods=1,pods=2", wantErr: "pods is given twice"},
		{in: "pods=lots", wantErr: "pods=lots"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseResourceList(tc.in)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseLimitRange(t *testing.T) {
	got, err := ParseLimitRange("default-cpu=100m,default-request-cpu=50m,max-memory=1Gi,min-memory=16Mi")
	require.NoError(t, err)
	assert.Equal(t, &LimitRange{
		Default:        corev1.ResourceList{"cpu": resource.MustParse("100m")},
		DefaultRequest: corev1.ResourceList{"cpu": resource.MustParse("50m")},
		Max:            corev1.ResourceList{"memory": resource.MustParse("1Gi")},
		Min:            corev1.ResourceList{"memory": resource.MustParse("16Mi")},
	}, got)
	for _, bad := range []string{"cpu=1", "default-=1", "max-cpu=1,max-cpu=2", "min-cpu=x"} {
		t.Run(bad, func(t *testing.T) {
			_, err := ParseLimitRange(bad)
			assert.Error(t, err)
		})
	}
}

func TestValidate(t *testing.T) {
	zero := int32(0)
	for name, tc := range map[string]struct {
		p       Policy
		wantErr string
	}{
		"default":        {p: Default()},
		"max namespaces": {p: Policy{MaxNamespaces: &zero}, wantErr: "maxNamespaces must be at least 1"},
		"level":          {p: Policy{PodSecurity: "lax"}, wantErr: "podSecurity"},
		"isolation":      {p: Policy{NetworkIsolation: "some"}, wantErr: "networkIsolation"},
		"class":          {p: Policy{PriorityClasses: []string{"Not_A_Name"}}, wantErr: "priorityClasses"},
		"burst":          {p: Policy{RateLimit: &RateLimit{QPS: 50, Burst: 10}}, wantErr: "burst (10) must be at least qps (50)"},
		"negative":       {p: Policy{Quota: corev1.ResourceList{"pods": resource.MustParse("-1")}}, wantErr: "must not be negative"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestEffective(t *testing.T) {
	two := int32(2)
	defaults := Policy{PodSecurity: "restricted", NetworkIsolation: NetworkIsolationTenant, MaxNamespaces: &two}
	got := Effective(Policy{PodSecurity: "baseline"}, defaults)
	assert.Equal(t, "baseline", got.PodSecurity)
	assert.Equal(t, NetworkIsolationTenant, got.NetworkIsolation)
	assert.Equal(t, &two, got.MaxNamespaces)
}
