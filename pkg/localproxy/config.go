package localproxy

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// DefaultShutdownGrace bounds how long Shutdown waits for in-flight
// requests when its context has no deadline of its own.
const DefaultShutdownGrace = 10 * time.Second

// Config configures a Proxy.
type Config struct {
	// Upstream is the REST config of the shared cluster with the caller's
	// own credentials (no impersonation of its own). The proxy impersonates
	// the tenant identity with it, so those credentials must be allowed to
	// impersonate.
	Upstream *rest.Config
	// Tenant is the tenant's name.
	Tenant string
	// User is the tenant-local user the proxy acts as;
	// translate.DefaultAdminUser when empty.
	User string
	// Groups are extra tenant-local groups of User (the tenant group
	// zoo:tenant:<tenant> is always added).
	Groups []string
	// Admin says User is one of the tenant's administrators (the Tenant's
	// spec.admins): the proxy adds translate.AdminsGroup, which holds the
	// cluster-scoped rights of tenant admins upstream.
	Admin bool
	// Extra is extra impersonation data passed upstream unchanged.
	Extra map[string][]string
	// Direct says Upstream's credential already is the identity of User
	// (with Groups) of Tenant — a tenant user's client certificate — so the
	// proxy impersonates no one and has no identity of its own: what it
	// reads for itself it reads as that tenant user (direct.go). Admin and
	// Extra must be unset.
	Direct bool
	// IsTenant, when set, says whether a tenant of that name exists (a
	// server's informer of the records); else the proxy lists the records
	// itself when it needs to know.
	IsTenant func(name string) bool
	// Namespaces, when set, is the index of the tenant's upstream
	// namespaces (WatchNamespaces) the proxy answers the tenant's
	// namespace lists from and fans all-namespaces requests out over,
	// instead of listing them upstream by label each time — a list that
	// grows with the number of tenants. Its watch must be the caller's own
	// identity's. Nil: the proxy lists them each time.
	Namespaces *NamespaceIndex
	// NewPolicyClient makes the tenant library's client of the policy
	// hooks (the namespace limit, a new namespace's policy objects, the
	// wake of a sleeping tenant) with the caller's credentials and the
	// tenant's namespaces (nil: listed by label); tenantctl.PolicyClientFor
	// in production. Required unless Direct.
	NewPolicyClient func(upstream *rest.Config, namespaces tenantapi.NamespaceSource) (tenantapi.PolicyClient, error)
	// Token is the bearer token local clients must present; see NewToken.
	// Empty means the proxy is served only through ServeAuthenticated, by a
	// server that authenticates its callers itself: ServeHTTP then refuses
	// every request.
	Token string
	// FairShare makes ServeHTTP enforce the tenant's fair share
	// (spec.policy.rateLimit of its record, read with the caller's own
	// identity; see fairshare.go). `kubectl zoo serve` sets it; a server
	// in front of the proxy enforces its tenants' shares itself.
	FairShare bool
	// APIAccess, set by the multi-tenant server, gives the pods and pod
	// templates written through the proxy the in-cluster access of the
	// tenant's view (apiaccess.go); nil injects nothing.
	APIAccess *APIAccess
}

// complete validates c and fills in defaults.
func (c *Config) complete() (translate.Tenant, error) {
	if c.Upstream == nil {
		return translate.Tenant{}, errors.New("no upstream REST config")
	}
	tenant, err := translate.NewTenant(c.Tenant)
	if err != nil {
		return translate.Tenant{}, fmt.Errorf("tenant: %w", err)
	}
	if c.User == "" {
		c.User = translate.DefaultAdminUser
	}
	if c.Token != "" && len(c.Token) < 16 {
		return translate.Tenant{}, errors.New("the local bearer token must have at least 16 characters")
	}
	if c.Direct && c.Namespaces != nil {
		return translate.Tenant{}, errors.New("a proxy with the tenant's own credential (Direct) cannot watch namespaces: Namespaces must be unset")
	}
	if c.Direct && (c.Admin || len(c.Extra) > 0) {
		return translate.Tenant{}, errors.New("a proxy with the tenant's own credential (Direct) impersonates no one: Admin and Extra must be unset")
	}
	if (c.Upstream.Impersonate.UserName != "" || len(c.Upstream.Impersonate.Groups) > 0) && !c.credentialIsTenantUser(tenant) {
		return translate.Tenant{}, errors.New("the upstream config already impersonates someone; the proxy impersonates the tenant itself")
	}
	return tenant, nil
}

// credentialIsTenantUser reports whether, in Direct mode, the upstream
// config's own impersonation is exactly the tenant user served: a
// certificate of the cluster's signer acts only by impersonating its
// tenant identity (its kubeconfig says so, pkg/certs), which is then the
// credential, not an impersonation of the proxy's.
func (c *Config) credentialIsTenantUser(t translate.Tenant) bool {
	im := c.Upstream.Impersonate
	return c.Direct && im.UserName == t.UpstreamUser(c.User) && im.UID == "" && len(im.Extra) == 0 &&
		slices.Equal(slices.Sorted(slices.Values(im.Groups)), slices.Sorted(slices.Values(t.UpstreamGroups(c.Groups, false))))
}

// impersonation returns the upstream identity of the configured tenant user.
func (c *Config) impersonation(t translate.Tenant) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{
		UserName: t.UpstreamUser(c.User),
		Groups:   t.UpstreamGroups(c.Groups, c.Admin),
		Extra:    c.Extra,
	}
}
