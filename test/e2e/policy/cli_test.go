package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestPolicyCLI: `policy set` changes only the flags given and clears a
// field given empty; `policy show` prints what is stored; bad input is one
// line and exit 1, and changes nothing.
func TestPolicyCLI(t *testing.T) {
	framework.InstallTenants(t)
	resetPolicy(t, "acme")
	t.Cleanup(func() { zoo(t, "policy", "set", "acme", "--quota", "", "--qps", "0", "--max-namespaces", "0") })

	mustZoo(t, "policy", "set", "acme", "--quota", "pods=50,requests.cpu=4", "--qps", "50", "--max-namespaces", "10")
	mustZoo(t, "policy", "set", "acme", "--max-inflight", "20")
	want := `TENANT   POLICY              VALUE
acme     max-namespaces      10
acme     quota               pods=50,requests.cpu=4
acme     limit-range         <none>
acme     pod-security        baseline
acme     network-isolation   tenant
acme     priority-classes    <none>
acme     external-names      <none>
acme     volume-sources      <none>
acme     ingress-hosts       <none>
acme     rate-limit          qps=50,burst=50,max-inflight=20
acme     sleep-after         <none>
`
	assert.Equal(t, want, mustZoo(t, "policy", "show", "acme"))
	assert.JSONEq(t, `{"maxNamespaces":10,"quota":{"pods":"50","requests.cpu":"4"},"podSecurity":"baseline","networkIsolation":"tenant",
		"rateLimit":{"qps":50,"burst":50,"maxInflight":20}}`, mustZoo(t, "policy", "show", "acme", "-o", "json"))
	// The record holds it in full.
	assert.JSONEq(t, `{"maxNamespaces":10,"quota":{"pods":"50","requests.cpu":"4"},"podSecurity":"baseline","networkIsolation":"tenant",
		"rateLimit":{"qps":50,"burst":50,"maxInflight":20}}`, framework.Kubectl(t, "get", "tenant", "acme", "-o", "jsonpath={.spec.policy}"))

	mustZoo(t, "policy", "set", "acme", "--quota", "")
	assert.NotContains(t, mustZoo(t, "policy", "show", "acme", "-o", "yaml"), "quota")

	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"bad level":          {[]string{"policy", "set", "acme", "--pod-security", "lax"}, `pod security level "lax" is not one of privileged, baseline, restricted`},
		"bad quota":          {[]string{"policy", "set", "acme", "--quota", "pods"}, `"pods" is not NAME=QUANTITY`},
		"bad limit range":    {[]string{"policy", "set", "acme", "--limit-range", "cpu=1"}, "does not start with default-"},
		"burst below qps":    {[]string{"policy", "set", "acme", "--qps", "50", "--burst", "5"}, "burst (5) must be at least qps (50)"},
		"negative":           {[]string{"policy", "set", "acme", "--max-namespaces", "-1"}, "--max-namespaces must not be negative"},
		"no flag":            {[]string{"policy", "set", "acme"}, "no policy flag given"},
		"no such tenant":     {[]string{"policy", "set", "ghost", "--pod-security", "restricted"}, `tenant "ghost" does not exist`},
		"show no tenant":     {[]string{"policy", "show", "ghost"}, `tenant "ghost" does not exist`},
		"show bad output":    {[]string{"policy", "show", "acme", "-o", "wide"}, "--output must be one of json|yaml"},
		"bad tenant name":    {[]string{"policy", "set", "Acme", "--pod-security", "restricted"}, "Acme"},
		"two errors joined":  {[]string{"policy", "set", "acme", "--network-isolation", "some", "--priority-classes", "Gold"}, "networkIsolation"},
		"an IP is no name":   {[]string{"policy", "set", "acme", "--external-names", "*.example.com,127.0.0.1"}, `externalNames: "127.0.0.1": IP addresses are not names`},
		"a pod's own source": {[]string{"policy", "set", "acme", "--volume-sources", "nfs,emptyDir"}, `volumeSources: "emptyDir" is not a volume source that names storage outside the cluster`},
		"an IP is no host":   {[]string{"policy", "set", "acme", "--ingress-hosts", "10.0.0.1"}, `ingressHosts: "10.0.0.1": IP addresses are not names`},
	} {
		t.Run(name, func(t *testing.T) {
			framework.RequireOneLineError(t, zoo(t, tc.args...), tc.want)
		})
	}
	assert.Contains(t, mustZoo(t, "policy", "show", "acme"), "pod-security        baseline", "nothing changed")
}

// TestDefaultPolicy: `install --default-policy` stores the cluster's
// default, `tenant create` copies it into new tenants (their namespaces
// get its level, their pods its classes) and leaves existing tenants
// alone; a bad file is one line and exit 1.
func TestDefaultPolicy(t *testing.T) {
	framework.InstallTenants(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	good := file("good.yaml", "podSecurity: restricted\npriorityClasses: [silver]\nquota: {pods: '20'}\n")
	reset := file("reset.yaml", "{}\n")
	t.Cleanup(func() { zoo(t, "install", "--default-policy", reset) })

	framework.RequireOneLineError(t, zoo(t, "install", "--default-policy", file("typo.yaml", "podSecurityLevel: restricted\n")), `unknown field "podSecurityLevel"`)
	framework.RequireOneLineError(t, zoo(t, "install", "--default-policy", file("lax.yaml", "podSecurity: lax\n")), `pod security level "lax"`)
	framework.RequireOneLineError(t, zoo(t, "install", "--default-policy", filepath.Join(dir, "missing.yaml")), "no such file")
	framework.RequireOneLineError(t, zoo(t, "install", "--uninstall", "--default-policy", good), "--default-policy does not go with --uninstall")

	mustZoo(t, "install", "--default-policy", good)
	mustZoo(t, "install") // run again without it: the default stays
	mustZoo(t, "tenant", "create", "gamma")
	assert.JSONEq(t, `{"podSecurity":"restricted","networkIsolation":"tenant","priorityClasses":["silver"],"quota":{"pods":"20"}}`,
		framework.Kubectl(t, "get", "tenant", "gamma", "-o", "jsonpath={.spec.policy}"))
	assert.Equal(t, "restricted", framework.Kubectl(t, "get", "ns", "gamma-default", "-o", `jsonpath={.metadata.labels.pod-security\.kubernetes\.io/enforce}`))
	assert.Equal(t, "baseline", framework.Kubectl(t, "get", "ns", "acme-default", "-o", `jsonpath={.metadata.labels.pod-security\.kubernetes\.io/enforce}`),
		"an existing tenant keeps its policy")
	mustZoo(t, "tenant", "create", "gamma") // run again: the stored policy stays
	assert.Contains(t, mustZoo(t, "policy", "show", "gamma"), "pod-security        restricted")
	assert.Equal(t, "gamma", framework.Kubectl(t, "get", "clusterrole", "zoo-tenant-priority-gamma", "-o", "jsonpath={.metadata.labels."+
		`zoo\.kubectl-zoo\.io/priority-grant-of}`), "the default's classes are granted")

	mustZoo(t, "install", "--default-policy", reset)
	mustZoo(t, "tenant", "create", "delta")
	assert.JSONEq(t, `{"podSecurity":"baseline","networkIsolation":"tenant"}`, framework.Kubectl(t, "get", "tenant", "delta", "-o", "jsonpath={.spec.policy}"))
	for _, name := range []string{"gamma", "delta"} {
		mustZoo(t, "tenant", "delete", name)
	}
	assert.Empty(t, framework.Kubectl(t, "get", "clusterrole", "-l", translate.TenantLabel+"=gamma", "-o", "name"), "tenant delete removes the grant")
}
