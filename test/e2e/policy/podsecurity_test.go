package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// privilegedPod is a pod every level but privileged refuses.
func privilegedPod(name, ns string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: %s}
spec:
  containers:
  - {name: c, image: busybox, securityContext: {privileged: true}, volumeMounts: [{name: host, mountPath: /host}]}
  volumes: [{name: host, hostPath: {path: /}}]
`, name, ns)
}

// levels returns the Pod Security labels (enforce/warn/audit) of every
// active namespace of tenant, as "ns=enforce/warn/audit" lines.
func levels(t *testing.T, tenant string) []string {
	t.Helper()
	out := mustKubectl(t, "", "", "get", "ns", "-l", translate.TenantLabel+"="+tenant, "-o",
		`jsonpath={range .items[?(@.status.phase=="Active")]}{.metadata.name}={.metadata.labels.pod-security\.kubernetes\.io/enforce}/{.metadata.labels.pod-security\.kubernetes\.io/warn}/{.metadata.labels.pod-security\.kubernetes\.io/audit}{"\n"}{end}`)
	return strings.Fields(out)
}

// TestPodSecurityFromPolicy: the level of acme's policy is the level of
// EVERY acme namespace (also one acme made itself): a privileged pod is
// refused under baseline through serve and as acme's identity directly
// upstream, accepted both ways after `policy set --pod-security
// privileged`, and refused again after `--pod-security restricted` (also
// for a ServiceAccount of acme's). beta is never touched, and acme cannot
// loosen the level itself.
func TestPodSecurityFromPolicy(t *testing.T) {
	acme := serve(t, "acme")
	resetPolicy(t, "acme")
	mustKubectl(t, acme, "", "create", "namespace", "ps")
	as := tenantAs("acme")
	sa := saKubeconfig(t, "acme-ps", "builder")
	betaBefore := levels(t, "beta")

	attempt := func(name string) (viaServe, upstream framework.Result) {
		viaServe = kubectl(t, acme, privilegedPod(name+"-serve", "ps"), "create", "-f", "-")
		upstream = kubectl(t, "", privilegedPod(name+"-up", "acme-ps"), append(as, "create", "-f", "-")...)
		return viaServe, upstream
	}
	refused := func(level string) {
		t.Helper()
		viaServe, upstream := attempt("root-" + level)
		bySA := kubectl(t, sa, privilegedPod("root-"+level+"-sa", "acme-ps"), "create", "-f", "-")
		for name, res := range map[string]framework.Result{"through serve": viaServe, "upstream as acme": upstream, "acme's ServiceAccount": bySA} {
			require.Error(t, res.Err, "%s: a privileged pod must be refused under %s; stdout: %s", name, level, res.Stdout)
			assert.Contains(t, res.Stderr, `violates PodSecurity "`+level+`:latest"`, name)
		}
	}
	everywhere := func(level string) {
		t.Helper()
		got := levels(t, "acme")
		require.Len(t, got, 5, "acme's four standard namespaces and ps: %v", got)
		for _, l := range got {
			_, labels, _ := strings.Cut(l, "=")
			assert.Equal(t, level+"/"+level+"/"+level, labels, l)
		}
	}

	assert.Contains(t, mustZoo(t, "policy", "show", "acme"), "pod-security        baseline")
	everywhere("baseline")
	refused("baseline")

	require.Equal(t, "tenant/acme policy set\n", mustZoo(t, "policy", "set", "acme", "--pod-security", "privileged"))
	everywhere("privileged")
	viaServe, upstream := attempt("root-privileged")
	require.NoError(t, viaServe.Err, "through serve under privileged: %s", viaServe.Stderr)
	require.NoError(t, upstream.Err, "upstream as acme under privileged: %s", upstream.Stderr)
	mustKubectl(t, "", "", "delete", "pod", "-n", "acme-ps", "root-privileged-serve", "root-privileged-up", "--wait=false")

	mustZoo(t, "policy", "set", "acme", "--pod-security", "restricted")
	everywhere("restricted")
	refused("restricted")
	assert.Contains(t, mustZoo(t, "policy", "show", "acme", "-o", "yaml"), "podSecurity: restricted")

	// The tenant cannot loosen it: through serve nor directly upstream.
	res := kubectl(t, acme, "", "label", "ns", "ps", "pod-security.kubernetes.io/enforce=baseline", "--overwrite")
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "pod-security.kubernetes.io/enforce")
	res = kubectl(t, "", "", append(as, "label", "ns", "acme-ps", "pod-security.kubernetes.io/enforce=baseline", "--overwrite")...)
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-metadata'")
	res = kubectl(t, sa, "", "label", "ns", "acme-ps", "pod-security.kubernetes.io/enforce=baseline", "--overwrite")
	require.Error(t, res.Err, "acme's ServiceAccount may not loosen it either")
	assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-metadata'")
	// Nor create a namespace below it, directly upstream (the proxy labels
	// what it creates; the grant of the level changed with the policy).
	res = kubectl(t, "", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: acme-loose\n  labels: {"+translate.TenantLabel+": acme, pod-security.kubernetes.io/enforce: baseline}\n",
		append(as, "create", "-f", "-")...)
	require.Error(t, res.Err)
	assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant-metadata'")

	// A namespace acme creates now gets the new level, through serve
	// and directly upstream (at most two authorization checks decide).
	mustKubectl(t, acme, "", "create", "namespace", "strict")
	mustKubectl(t, "", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: acme-strict2\n  labels: {"+translate.TenantLabel+": acme, pod-security.kubernetes.io/enforce: restricted}\n",
		append(as, "create", "-f", "-")...)
	assert.Equal(t, "restricted", mustKubectl(t, "", "", "get", "ns", "acme-strict", "-o", `jsonpath={.metadata.labels.pod-security\.kubernetes\.io/enforce}`))
	mustKubectl(t, "", "", append(as, "delete", "namespace", "acme-strict", "acme-strict2", "--wait=false")...)

	assert.Equal(t, betaBefore, levels(t, "beta"), "beta's namespaces are untouched")
	mustZoo(t, "policy", "set", "acme", "--pod-security", "")
	everywhere("baseline")
	mustKubectl(t, acme, "", "delete", "namespace", "ps", "--wait=false")
}
