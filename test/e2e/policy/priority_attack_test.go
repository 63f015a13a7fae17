package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestPriorityGrantAttacks: acme cannot grant itself a PriorityClass its
// policy does not list — neither by changing its grant nor by binding the
// registry identity to a role of its own, directly upstream as its admin,
// with a ServiceAccount token of its own, or through serve — and a pod of
// that class stays refused.
func TestPriorityGrantAttacks(t *testing.T) {
	acme := serve(t, "acme")
	resetPolicy(t, "acme")
	mustKubectl(t, "", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: platinum}\nvalue: 200000\n", "apply", "-f", "-")
	mustZoo(t, "policy", "set", "acme", "--priority-classes", "silver")
	as := tenantAs("acme")
	sa := saKubeconfig(t, "acme-kube-system", "grabber")
	const ownRole = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: acme-grab, labels: {zoo.kubectl-zoo.io/tenant: acme}}\n" +
		"rules: [{apiGroups: [zoo.kubectl-zoo.io], resources: [priorityclasses], verbs: [use]}]\n"
	mustKubectl(t, "", ownRole, append(as, "apply", "-f", "-")...)
	binding := func(ns, role string) string {
		return "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: grab, namespace: " + ns + "}\n" +
			"roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: " + role + "}\n" +
			"subjects: [{kind: ServiceAccount, namespace: zoo-system, name: zoo-tenant-registry}]\n"
	}
	for name, tc := range map[string]struct {
		kubeconfig, stdin string
		args              []string
	}{
		"widen its grant upstream": {args: append(as, "patch", "clusterrole", "zoo-tenant-priority-acme", "--type=json",
			`-p=[{"op":"add","path":"/rules/0/resourceNames/-","value":"platinum"}]`)},
		"widen its grant with a ServiceAccount": {kubeconfig: sa, args: []string{"patch", "clusterrole", "zoo-tenant-priority-acme", "--type=json",
			`-p=[{"op":"add","path":"/rules/0/resourceNames/-","value":"platinum"}]`}},
		"bind the registry identity to its own role upstream": {stdin: binding("acme-kube-system", "acme-grab"), args: append(as, "create", "-f", "-")},
		"bind the registry identity with a ServiceAccount":    {kubeconfig: sa, stdin: binding("acme-kube-system", "acme-grab"), args: []string{"create", "-f", "-"}},
		"bind its own namespace to its grant upstream":        {stdin: binding("acme-kube-system", "zoo-tenant-priority-acme"), args: append(as, "create", "-f", "-")},
		"delete its grant's binding upstream":                 {args: append(as, "delete", "rolebinding", "zoo-tenant-priority", "-n", "acme-kube-system")},
	} {
		t.Run(name, func(t *testing.T) {
			res := kubectl(t, tc.kubeconfig, tc.stdin, tc.args...)
			require.Error(t, res.Err, "must be refused; stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, "is forbidden", "refused by RBAC or admission, not for another reason")
		})
	}
	// Through serve the names are acme's own: the binding's subject and the
	// role are acme's, never the registry identity or the grant.
	mustKubectl(t, acme, binding("kube-system", "grab"), "create", "-f", "-")
	assert.Equal(t, "acme-zoo-system", framework.Kubectl(t, "get", "rolebinding", "grab", "-n", "acme-kube-system", "-o", "jsonpath={.subjects[*].namespace}"),
		"the subject is acme's zoo-system, not the platform's")
	assert.Equal(t, "acme-grab", framework.Kubectl(t, "get", "rolebinding", "grab", "-n", "acme-kube-system", "-o", "jsonpath={.roleRef.name}"))

	assert.Equal(t, "silver", framework.Kubectl(t, "get", "clusterrole", "zoo-tenant-priority-acme", "-o", "jsonpath={.rules[0].resourceNames[*]}"))
	res := kubectl(t, "", classPod("plat", "acme-default", "platinum"), append(as, "create", "-f", "-")...)
	require.Error(t, res.Err, "a platinum pod stays refused: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byPriority)
	res = kubectl(t, acme, classPod("plat", "default", "platinum"), "create", "-f", "-")
	require.Error(t, res.Err, "through serve: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byProxyPriority+" platinum")

	kubectl(t, acme, "", "delete", "rolebinding", "grab", "-n", "kube-system", "--ignore-not-found")
	mustKubectl(t, "", "", append(as, "delete", "clusterrole", "acme-grab")...)
	framework.Kubectl(t, "delete", "priorityclass", "platinum")
}
