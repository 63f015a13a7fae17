package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestPriorityGrantNotAggregated (issue 24, class 3): the ClusterRole of
// acme's priority grant is the platform's, so no aggregationRule of acme,
// not even one that selects every role ({}), copies its rule into a role
// of acme.
func TestPriorityGrantNotAggregated(t *testing.T) {
	acme := serve(t, "acme")
	resetPolicy(t, "acme")
	mustZoo(t, "policy", "set", "acme", "--priority-classes", "prio-agg")
	require.Contains(t, framework.Kubectl(t, "get", "clusterrole", "zoo-tenant-priority-acme", "-o", "jsonpath={.rules}"), "priorityclasses")
	mustKubectl(t, acme, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: prio-part, labels: {example.com/prio: "true"}}
rules: [{apiGroups: [prio.example.com], resources: [parts], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: prio-grab}
aggregationRule:
  clusterRoleSelectors: [{}]
`, "apply", "-f", "-")
	defer kubectl(t, acme, "", "delete", "clusterrole", "prio-part", "prio-grab")
	var rules string
	require.Eventually(t, func() bool {
		rules = framework.Kubectl(t, "get", "clusterrole", "acme-prio-grab", "-o", "jsonpath={.rules}")
		return strings.Contains(rules, "parts")
	}, 30*time.Second, 500*time.Millisecond, "acme's own roles are aggregated")
	time.Sleep(2 * time.Second) // the controller has seen every role by now
	rules = framework.Kubectl(t, "get", "clusterrole", "acme-prio-grab", "-o", "jsonpath={.rules}")
	assert.NotContains(t, rules, "priorityclasses", "the platform's grant is not aggregated into acme's role")
}
