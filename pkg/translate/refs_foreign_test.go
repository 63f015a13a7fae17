package translate

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestForeignReferencesOut checks what a tenant reads when its own object
// upstream holds a reference to what is not its own (written there by an
// upstream admin or a controller, not through the proxy): the reference
// is left out rather than shown as a name that, in the tenant's view,
// stands for its own object (fakeShared: acme owns the classes "fast" and
// "high"; beta is another tenant, so "beta-*" are beta's).
func TestForeignReferencesOut(t *testing.T) {
	tr := New(MustTenant("acme"), Options{Shared: sharedWithTenants{tenants: []string{"acme", "beta"}}})
	cases := []struct {
		name string
		gr   schema.GroupResource
		in   string
		want string
	}{
		{"a claim for another tenant's class", gr("", "persistentvolumeclaims"),
			`{"spec":{"storageClassName":"beta-fast"}}`, `{"spec":{}}`},
		{"a claim for the cluster's class", gr("", "persistentvolumeclaims"),
			`{"spec":{"storageClassName":"standard"}}`, `{"spec":{"storageClassName":"standard"}}`},
		{"a claim for the tenant's own class", gr("", "persistentvolumeclaims"),
			`{"spec":{"storageClassName":"acme-fast"}}`, `{"spec":{"storageClassName":"fast"}}`},
		{"a pod's ephemeral claim for another tenant's class", gr("", "pods"),
			`{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"storageClassName":"beta-fast"}}}}]}}`,
			`{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{}}}}]}}`},
		{"a pod of another tenant's priority class", gr("", "pods"),
			`{"spec":{"priorityClassName":"beta-high","runtimeClassName":"beta-rc"}}`, `{"spec":{}}`},
		{"a pod of the cluster's and its own classes", gr("", "pods"),
			`{"spec":{"priorityClassName":"system-node-critical","runtimeClassName":"acme-high"}}`,
			`{"spec":{"priorityClassName":"system-node-critical","runtimeClassName":"high"}}`},
		{"an ingress of another tenant's class", gr("networking.k8s.io", "ingresses"),
			`{"spec":{"ingressClassName":"beta-nginx"}}`, `{"spec":{}}`},
		{"a volume of a class outside the tenant's prefix", grPV,
			`{"metadata":{"name":"acme-pv"},"spec":{"storageClassName":"standard"}}`, `{"metadata":{"name":"pv"},"spec":{}}`},
		{"a volume of the tenant's class", grPV,
			`{"metadata":{"name":"acme-pv"},"spec":{"storageClassName":"acme-fast"}}`, `{"metadata":{"name":"pv"},"spec":{"storageClassName":"fast"}}`},
		{"a volume bound to another tenant's claim", grPV,
			`{"metadata":{"name":"acme-pv"},"spec":{"storageClassName":"acme-zoo-no-class","claimRef":{"namespace":"beta-default","name":"data"}}}`,
			`{"metadata":{"name":"pv"},"spec":{}}`},
		{"capacity published for a class outside the tenant's prefix", gr("storage.k8s.io", "csistoragecapacities"),
			`{"storageClassName":"standard"}`, `{}`},
		{"an endpoint of another tenant's pod", gr("", "endpoints"),
			`{"subsets":[{"addresses":[{"ip":"10.0.0.1","targetRef":{"kind":"Pod","namespace":"beta-default","name":"p"}},{"ip":"10.0.0.2","targetRef":{"kind":"Pod","namespace":"acme-default","name":"q"}}]}]}`,
			`{"subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2","targetRef":{"kind":"Pod","namespace":"default","name":"q"}}]}]}`},
		{"an event about another tenant's volume", gr("", "events"),
			`{"involvedObject":{"kind":"PersistentVolume","apiVersion":"v1","name":"beta-pv"},"related":{"kind":"Node","apiVersion":"v1","name":"node-1"}}`,
			`{"related":{"kind":"Node","apiVersion":"v1","name":"node-1"}}`},
		{"an event about an object of another tenant's API group", gr("events.k8s.io", "events"),
			`{"regarding":{"kind":"Thing","apiVersion":"beta-x.io/v1","namespace":"acme-default","name":"t"}}`, `{}`},
		{"an access review's answer about another tenant's namespace", gr(authzGroup, "subjectaccessreviews"),
			`{"spec":{"user":"zoo:acme:dev","resourceAttributes":{"namespace":"beta-default","verb":"get","resource":"secrets"}},"status":{"allowed":false}}`,
			`{"spec":{"user":"dev"},"status":{"allowed":false}}`},
		{"an access review's answer about another tenant's API group", gr(authzGroup, "selfsubjectaccessreviews"),
			`{"spec":{"resourceAttributes":{"namespace":"acme-default","group":"beta-x.io","verb":"get","resource":"things"}},"status":{"allowed":true}}`,
			`{"spec":{},"status":{"allowed":true}}`},
		{"an access review's answer about the tenant's own namespace", gr(authzGroup, "selfsubjectaccessreviews"),
			`{"spec":{"resourceAttributes":{"namespace":"acme-default","group":"acme-x.io","verb":"get","resource":"things"}},"status":{"allowed":true}}`,
			`{"spec":{"resourceAttributes":{"namespace":"default","group":"x.io","verb":"get","resource":"things"}},"status":{"allowed":true}}`},
		{"a role aggregating another tenant's roles", gr(rbacGroup, "clusterroles"),
			`{"metadata":{"name":"acme-r"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}},{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"acme","x":"y"}}]}}`,
			`{"metadata":{"name":"r"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.in)
			require.NoError(t, tr.ObjectToTenant(tc.gr, obj))
			jsonEq(t, tc.want, obj)
		})
	}
	t.Run("without the tenants' names, a class is shown as it is", func(t *testing.T) {
		obj := jsonObj(t, `{"spec":{"storageClassName":"beta-fast"}}`)
		require.NoError(t, New(MustTenant("acme"), Options{Shared: fakeShared{}}).ObjectToTenant(gr("", "persistentvolumeclaims"), obj))
		jsonEq(t, `{"spec":{"storageClassName":"beta-fast"}}`, obj)
	})
}
