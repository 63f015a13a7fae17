package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestMaxNamespacesFromPolicySet: `policy set --max-namespaces` alone (no
// proxy, no server) brings the limit into force upstream: acme's admin,
// directly upstream, cannot create a namespace beyond it, and can once the
// limit is cleared again.
func TestMaxNamespacesFromPolicySet(t *testing.T) {
	framework.InstallTenants(t)
	t.Cleanup(func() { zoo(t, "policy", "set", "acme", "--max-namespaces", "0") })
	n := len(strings.Fields(framework.Kubectl(t, "get", "ns", "-l", "zoo.kubectl-zoo.io/tenant=acme", "-o", "name")))
	require.Positive(t, n)

	mustZoo(t, "policy", "set", "acme", "--max-namespaces", fmt.Sprint(n))
	ns := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-overlimit","labels":{"zoo.kubectl-zoo.io/tenant":"acme",` +
		`"pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"}}}`
	res := kubectl(t, "", ns, append([]string{"create", "-f", "-"}, tenantAs("acme")...)...)
	require.Error(t, res.Err, "a namespace beyond the limit was created: %s", res.Stdout)
	assert.Contains(t, res.Stderr, "tenant acme has as many namespaces as its policy allows")

	mustZoo(t, "policy", "set", "acme", "--max-namespaces", "0")
	mustKubectl(t, "", ns, append([]string{"create", "-f", "-"}, tenantAs("acme")...)...)
	framework.Kubectl(t, "delete", "ns", "acme-overlimit", "--wait=false")
}
