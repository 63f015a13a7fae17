package proxy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubernetesService: a new tenant finds default/kubernetes as in a fresh
// cluster, pointing at the API server's addresses; it is the tenant's own,
// invisible to the other tenant, and a tenant user without rights cannot
// redirect it.
func TestKubernetesService(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	upstreamIPs := admin(t, "-n", "default", "get", "endpointslices", "-l", "kubernetes.io/service-name=kubernetes",
		"-o", "jsonpath={.items[0].endpoints[*].addresses[*]}")
	require.NotEmpty(t, upstreamIPs)

	for _, s := range []*served{acme, beta} {
		t.Run(s.Tenant, func(t *testing.T) {
			svc := s.k(t, "-n", "default", "get", "svc", "kubernetes", "-o", "jsonpath={.spec.ports[0].name}:{.spec.ports[0].port}:{.spec.selector}")
			assert.Equal(t, "https:443:", svc, "selectorless, port 443")
			assert.Equal(t, upstreamIPs, s.k(t, "-n", "default", "get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[*].addresses[*].ip}"))
			assert.Equal(t, upstreamIPs, s.k(t, "-n", "default", "get", "endpointslices", "-l", "kubernetes.io/service-name=kubernetes",
				"-o", "jsonpath={.items[*].endpoints[*].addresses[*]}"))
			out := s.k(t, "get", "svc", "-A", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name", "--no-headers")
			assert.Regexp(t, `(?m)^default\s+kubernetes$`, out)
		})
	}
	// Each tenant's is its own object in its own namespace.
	acmeUID := admin(t, "-n", "acme-default", "get", "svc", "kubernetes", "-o", "jsonpath={.metadata.uid}")
	betaUID := admin(t, "-n", "beta-default", "get", "svc", "kubernetes", "-o", "jsonpath={.metadata.uid}")
	assert.NotEqual(t, acmeUID, betaUID)
	assert.Equal(t, acmeUID, acme.k(t, "-n", "default", "get", "svc", "kubernetes", "-o", "jsonpath={.metadata.uid}"))

	dev := serve(t, "acme", "--user", "dev")
	for _, args := range [][]string{
		{"-n", "default", "patch", "endpoints", "kubernetes", "--type=merge", "-p", `{"subsets":[{"addresses":[{"ip":"10.9.9.9"}],"ports":[{"name":"https","port":443}]}]}`},
		{"-n", "default", "delete", "svc", "kubernetes"},
	} {
		res := dev.run(t, "", args...)
		require.Error(t, res.Err, "a tenant user without rights changed default/kubernetes: %s", res.Stdout)
		assert.Contains(t, res.Stderr, "(Forbidden)")
	}
	assert.Equal(t, upstreamIPs, acme.k(t, "-n", "default", "get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[*].addresses[*].ip}"))
}
