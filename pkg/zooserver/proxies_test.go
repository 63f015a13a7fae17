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
	beta, err := ps.get(identity("beta", "admin"), true, ps.generation())
	require.NoError(t, err)
	first, err := ps.get(identity("acme", "sa-0"), false, ps.generation())
	require.NoError(t, err)
	for i := range 50 {
		_, err := ps.get(identity("acme", fmt.Sprintf("sa-%d", i+1)), false, ps.generation())
		require.NoError(t, err)
	}
	again, err := ps.get(identity("beta", "admin"), true, ps.generation())
	require.NoError(t, err)
	assert.Same(t, beta, again, "beta's proxy survives acme's churn")
	evicted, err := ps.get(identity("acme", "sa-0"), false, ps.generation())
	require.NoError(t, err)
	assert.NotSame(t, first, evicted, "acme's oldest identity was evicted (and is made again)")
	assert.Equal(t, 3, ps.len(), "two of acme's, one of beta's")

	asAdmin, err := ps.get(identity("beta", "admin"), false, ps.generation())
	require.NoError(t, err)
	assert.NotSame(t, beta, asAdmin, "losing spec.admins gives another proxy")

	ps.closeAll()
	assert.Equal(t, 0, ps.len())
	p, err := ps.get(identity("acme", "late"), false, ps.generation())
	require.NoError(t, err)
	assert.NotNil(t, p)
	assert.Equal(t, 0, ps.len(), "a draining server keeps no new proxy")
}

// TestProxiesForgetRevokedTenant: when a tenant's record changes who its
// callers are (deleted, spec.admins changed), its proxies go — their
// watches end — and a proxy made for a judgement from before is not kept.
func TestProxiesForgetRevokedTenant(t *testing.T) {
	ps := newProxies(4, func(string) *rest.Config { return &rest.Config{Host: "https://upstream.invalid"} })
	acme, err := ps.get(identity("acme", "admin"), true, ps.generation())
	require.NoError(t, err)
	beta, err := ps.get(identity("beta", "admin"), true, ps.generation())
	require.NoError(t, err)

	judged := ps.generation()
	ps.forget("acme")
	assert.Equal(t, 1, ps.len(), "acme's proxy is gone, beta's stays")
	again, err := ps.get(identity("beta", "admin"), true, ps.generation())
	require.NoError(t, err)
	assert.Same(t, beta, again)

	stale, err := ps.get(identity("acme", "admin"), true, judged)
	require.NoError(t, err)
	assert.NotSame(t, acme, stale)
	assert.Equal(t, 1, ps.len(), "a proxy judged before the revocation is not kept")
	fresh, err := ps.get(identity("acme", "admin"), false, ps.generation())
	require.NoError(t, err)
	assert.NotSame(t, stale, fresh)
	assert.Equal(t, 2, ps.len())
}
