package zooserver

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func identity(tenant, user string) Identity {
	return Identity{Tenant: translate.MustTenant(tenant), User: user}
}

// TestProxiesChurnStaysWithinATenant: a tenant that uses thousands of
// identities evicts only its own proxies.
func TestProxiesChurnStaysWithinATenant(t *testing.T) {
	ps := newProxies(2, func(string) *rest.Config { return &rest.Config{Host: "https://upstream.invalid"} })
	beta, err := ps.get(identity("beta", "admin"), true)
	require.NoError(t, err)
	first, err := ps.get(identity("acme", "sa-0"), false)
	require.NoError(t, err)
	for i := range 50 {
		_, err := ps.get(identity("acme", fmt.Sprintf("sa-%d", i+1)), false)
		require.NoError(t, err)
	}
	again, err := ps.get(identity("beta", "admin"), true)
	require.NoError(t, err)
	assert.Same(t, beta, again, "beta's proxy survives acme's churn")
	evicted, err := ps.get(identity("acme", "sa-0"), false)
	require.NoError(t, err)
	assert.NotSame(t, first, evicted, "acme's oldest identity was evicted (and is made again)")
	assert.Equal(t, 3, ps.len(), "two of acme's, one of beta's")

	asAdmin, err := ps.get(identity("beta", "admin"), false)
	require.NoError(t, err)
	assert.NotSame(t, beta, asAdmin, "losing spec.admins gives another proxy")

	ps.closeAll()
	assert.Equal(t, 0, ps.len())
	p, err := ps.get(identity("acme", "late"), false)
	require.NoError(t, err)
	assert.NotNil(t, p)
	assert.Equal(t, 0, ps.len(), "a draining server keeps no new proxy")
}
