package policy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestChangeApply(t *testing.T) {
	ten := int32(10)
	base := Policy{
		MaxNamespaces: &ten, Quota: corev1.ResourceList{"pods": resource.MustParse("50")},
		PodSecurity: "restricted", NetworkIsolation: NetworkIsolationTenant, PriorityClasses: []string{"gold"},
		RateLimit: &RateLimit{QPS: 5, Burst: 10, MaxInflight: 2},
	}
	for name, tc := range map[string]struct {
		change  Change
		want    func(p *Policy)
		wantErr string
	}{
		"nothing given changes nothing": {change: Change{}, want: func(*Policy) {}},
		"one field":                     {change: Change{PodSecurity: ptr.To("baseline")}, want: func(p *Policy) { p.PodSecurity = "baseline" }},
		"quota cleared":                 {change: Change{Quota: ptr.To("")}, want: func(p *Policy) { p.Quota = nil }},
		"max namespaces cleared":        {change: Change{MaxNamespaces: ptr.To[int32](0)}, want: func(p *Policy) { p.MaxNamespaces = nil }},
		"classes sorted, deduplicated": {change: Change{PriorityClasses: ptr.To("silver, gold,silver")},
			want: func(p *Policy) { p.PriorityClasses = []string{"gold", "silver"} }},
		"classes cleared": {change: Change{PriorityClasses: ptr.To("")}, want: func(p *Policy) { p.PriorityClasses = nil }},
		"level reset":     {change: Change{PodSecurity: ptr.To("")}, want: func(p *Policy) { p.PodSecurity = "" }},
		"qps alone keeps the burst": {change: Change{QPS: ptr.To[int32](8)},
			want: func(p *Policy) { p.RateLimit = &RateLimit{QPS: 8, Burst: 10, MaxInflight: 2} }},
		"rate limit removed": {change: Change{QPS: ptr.To[int32](0), Burst: ptr.To[int32](0), MaxInflight: ptr.To[int32](0)},
			want: func(p *Policy) { p.RateLimit = nil }},
		"limit range": {change: Change{LimitRange: ptr.To("default-cpu=100m")},
			want: func(p *Policy) {
				p.LimitRange = &LimitRange{Default: corev1.ResourceList{"cpu": resource.MustParse("100m")}}
			}},
		"bad level":     {change: Change{PodSecurity: ptr.To("lax")}, wantErr: `pod security level "lax"`},
		"bad quota":     {change: Change{Quota: ptr.To("pods")}, wantErr: `"pods" is not NAME=QUANTITY`},
		"bad isolation": {change: Change{NetworkIsolation: ptr.To("some")}, wantErr: "networkIsolation"},
		"bad class":     {change: Change{PriorityClasses: ptr.To("Gold")}, wantErr: "priorityClasses"},
		"external names sorted, deduplicated": {change: Change{ExternalNames: ptr.To("*.example.com, api.partner.io,*.example.com")},
			want: func(p *Policy) { p.ExternalNames = []string{"*.example.com", "api.partner.io"} }},
		"external names cleared":             {change: Change{ExternalNames: ptr.To(" ")}, want: func(p *Policy) { p.ExternalNames = nil }},
		"an IP is no external name":          {change: Change{ExternalNames: ptr.To("127.0.0.1")}, wantErr: "externalNames"},
		"a cluster name is no external name": {change: Change{ExternalNames: ptr.To("*.svc.cluster.local")}, wantErr: "externalNames"},
		"volume sources sorted, deduplicated": {change: Change{VolumeSources: ptr.To("nfs, csi,nfs")},
			want: func(p *Policy) { p.VolumeSources = []string{"csi", "nfs"} }},
		"a pod's own source is no volume source to allow": {change: Change{VolumeSources: ptr.To("emptyDir")}, wantErr: "volumeSources"},
		"an unknown volume source":                        {change: Change{VolumeSources: ptr.To("nfs4")}, wantErr: "volumeSources"},
		"ingress hosts sorted, deduplicated": {change: Change{IngressHosts: ptr.To("shop.acme.io,*.apps.acme.io, shop.acme.io")},
			want: func(p *Policy) { p.IngressHosts = []string{"*.apps.acme.io", "shop.acme.io"} }},
		"every ingress host":             {change: Change{IngressHosts: ptr.To("*")}, want: func(p *Policy) { p.IngressHosts = []string{"*"} }},
		"ingress hosts cleared":          {change: Change{IngressHosts: ptr.To("")}, want: func(p *Policy) { p.IngressHosts = nil }},
		"an IP is no ingress host":       {change: Change{IngressHosts: ptr.To("10.0.0.1")}, wantErr: "ingressHosts"},
		"a double wildcard ingress host": {change: Change{IngressHosts: ptr.To("*.*.acme.io")}, wantErr: "ingressHosts"},
		"sleep after": {change: Change{SleepAfter: ptr.To("30m")},
			want: func(p *Policy) { p.SleepAfter = &metav1.Duration{Duration: 30 * time.Minute} }},
		"sleep after cleared by 0":     {change: Change{SleepAfter: ptr.To("0")}, want: func(*Policy) {}},
		"sleep after not a duration":   {change: Change{SleepAfter: ptr.To("soon")}, wantErr: "sleepAfter"},
		"sleep after below one second": {change: Change{SleepAfter: ptr.To("10ms")}, wantErr: "sleepAfter must be at least 1s"},
		"burst below qps": {change: Change{QPS: ptr.To[int32](50), Burst: ptr.To[int32](5)},
			wantErr: "burst (5) must be at least qps (50)"},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.change.Apply(base)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Equal(t, base, got, "a failed change returns the policy unchanged")
				return
			}
			require.NoError(t, err)
			want := base
			tc.want(&want)
			assert.Equal(t, want, got)
		})
	}
	t.Run("qps without a rate limit sets the burst", func(t *testing.T) {
		got, err := Change{QPS: ptr.To[int32](50)}.Apply(Policy{})
		require.NoError(t, err)
		assert.Equal(t, &RateLimit{QPS: 50, Burst: 50}, got.RateLimit)
	})
}

func TestParseDocument(t *testing.T) {
	p, err := Parse([]byte("podSecurity: restricted\npriorityClasses: [silver, gold]\nquota: {pods: '50'}\n"))
	require.NoError(t, err)
	assert.Equal(t, Policy{PodSecurity: "restricted", PriorityClasses: []string{"gold", "silver"},
		Quota: corev1.ResourceList{"pods": resource.MustParse("50")}}, p)
	p, err = Parse([]byte(`{"networkIsolation":"none"}`))
	require.NoError(t, err)
	assert.Equal(t, Policy{NetworkIsolation: NetworkIsolationNone}, p)
	for name, tc := range map[string]struct{ in, wantErr string }{
		"unknown field":  {"podSecurityLevel: restricted\n", `unknown field "podSecurityLevel"`},
		"invalid level":  {"podSecurity: lax\n", "podSecurity"},
		"not a document": {"- a\n- b\n", "not a policy"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestFormatRoundTrips(t *testing.T) {
	for _, s := range []string{"", "limits.memory=8Gi,pods=50,requests.cpu=4"} {
		list, err := ParseResourceList(s)
		require.NoError(t, err)
		assert.Equal(t, s, FormatResourceList(list))
	}
	s := "default-cpu=100m,default-request-cpu=50m,max-memory=1Gi,min-memory=16Mi"
	lr, err := ParseLimitRange(s)
	require.NoError(t, err)
	assert.Equal(t, s, FormatLimitRange(lr))
	assert.Empty(t, FormatLimitRange(nil))
}
