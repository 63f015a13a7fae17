package tenant_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	zooinstall "github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestKindsTableAgreesWithTheUpstream holds the kinds table, and the RBAC
// derived from it, against the real API server's discovery: a row's
// treatment agrees with the resource's scope, and the cluster-wide role of
// tenant admins holds cluster-scoped resources only (plus the create of
// RoleBindings that a new namespace needs).
func TestKindsTableAgreesWithTheUpstream(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(framework.Cluster().Config)
	require.NoError(t, err)
	lists, err := dc.ServerPreferredResources()
	require.NoError(t, err)
	namespaced := map[schema.GroupResource]bool{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		require.NoError(t, err)
		for _, r := range l.APIResources {
			namespaced[schema.GroupResource{Group: gv.Group, Resource: r.Name}] = r.Namespaced
		}
	}
	for _, k := range translate.Kinds() {
		t.Run(k.Resource.String(), func(t *testing.T) {
			ns, served := namespaced[k.Resource]
			if !served {
				t.Skipf("%s is not served by this API server (a disabled or alpha API)", k.Resource)
			}
			switch k.Treatment {
			case translate.Namespaced:
				assert.True(t, ns, "a Namespaced row for a cluster-scoped resource")
			case translate.TenantOwned, translate.Shared, translate.ReadOnly:
				assert.False(t, ns, "a %s row for a namespaced resource", k.Treatment)
			}
		})
	}
	for _, role := range zooinstall.InstallClusterRoles() {
		if role.Name != tenantapi.TenantClusterClusterRole {
			continue
		}
		for _, rule := range role.Rules {
			for _, g := range rule.APIGroups {
				for _, r := range rule.Resources {
					gr := schema.GroupResource{Group: g, Resource: r}
					if gr.Resource == "rolebindings" {
						assert.Equal(t, []string{"create"}, rule.Verbs)
						continue
					}
					ns, served := namespaced[gr]
					assert.True(t, !served || !ns, "%s is namespaced but granted to tenant admins cluster-wide", gr)
				}
			}
		}
	}
}
