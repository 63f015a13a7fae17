package tenantctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestPodSecurityLevelOfATenant(t *testing.T) {
	for _, tc := range []struct {
		annotations map[string]string
		want        string
		wantErr     bool
	}{
		{nil, translate.DefaultPodSecurityLevel, false},
		{map[string]string{translate.PodSecurityLevelAnnotation: "restricted"}, "restricted", false},
		{map[string]string{translate.PodSecurityLevelAnnotation: "Privileged"}, "", true},
	} {
		t.Run(tc.want, func(t *testing.T) {
			rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme", Annotations: tc.annotations}, Spec: tenantapi.TenantSpec{Admins: []string{"admin"}}}
			level, err := tenantapi.PodSecurityLevel(rec)
			if tc.wantErr {
				require.Error(t, err)
				_, err = platformobj.TenantRBAC(rec)
				require.Error(t, err, "no grant of an invalid level")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, level)
			rb, err := platformobj.TenantRBAC(rec)
			require.NoError(t, err)
			assert.Equal(t, tenantapi.MembershipClusterRole(level), rb.RoleRef.Name, "the tenant may create namespaces at its own level only")
			labels := namespaceLabels(translate.MustTenant("acme"), level)
			assert.Equal(t, level, labels[translate.PodSecurityEnforce])
			assert.Equal(t, "acme", labels[translate.TenantLabel])
		})
	}
}
