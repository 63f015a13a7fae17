package proxy_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamespaceBySeverSideApplyIsSetUp (issue 25, class 1): a namespace a
// tenant makes with `kubectl apply --server-side` (a PATCH answered 201)
// gets what one made by a create gets — its admins' rights, its policy
// objects — through serve and through the server: the admin uses it at
// once, and every all-namespaces list of the tenant stays served.
func TestNamespaceBySeverSideApplyIsSetUp(t *testing.T) {
	acme := serve(t, "acme")
	server := viaServer(t, servers(t), "acme")
	for name, view := range map[string]*served{"serve": acme, "server": server} {
		t.Run(name, func(t *testing.T) {
			ns := "ssa-" + name
			res := view.run(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+"\n", "apply", "--server-side", "-f", "-")
			require.NoError(t, res.Err, res.Stderr)
			t.Cleanup(func() { view.run(t, "", "delete", "namespace", ns, "--wait=false") })
			res = view.run(t, "", "-n", ns, "create", "configmap", "first")
			require.NoError(t, res.Err, "the admin may use the namespace it applied: %s", res.Stderr)
			assert.Equal(t, "resourcequota/zoo-policy", strings.TrimSpace(admin(t, "-n", "acme-"+ns, "get", "resourcequota", "zoo-policy", "-o", "name")),
				"its policy objects")
			for _, list := range [][]string{{"get", "pods", "-A"}, {"get", "configmaps", "-A"}, {"get", "events", "-A"}} {
				res := view.run(t, "", list...)
				require.NoError(t, res.Err, "%v: %s", list, res.Stderr)
			}
		})
	}
}
