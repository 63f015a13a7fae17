package zooserver

import (
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/utils/lru"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// DefaultMaxProxies bounds how many identities' proxies a server holds for
// one tenant.
const DefaultMaxProxies = 256

// maxTenants bounds how many tenants' proxies a server holds. Tenants are
// the platform's records, so only the platform's scale reaches it.
const maxTenants = 8192

// proxies makes the translating proxy of an identity on first use and keeps
// the most recently used ones, per tenant: a tenant that makes thousands of
// ServiceAccounts and uses each token once churns only its own proxies,
// never another tenant's. A proxy holds no connection of its own (the
// upstream transport is shared through client-go's transport cache), only
// its identity and caches, so an evicted one is closed — ending its
// watches, which clients resume — and made again when its identity returns.
type proxies struct {
	upstream  func(tenant string) *rest.Config
	perTenant int
	// apiAccess is given to every proxy (nil: none).
	apiAccess *localproxy.APIAccess
	// isTenant answers every proxy's question whether a tenant exists,
	// from the server's informer (nil: each proxy lists the tenants).
	isTenant func(name string) bool
	// namespaces is every proxy's index of the tenants' namespaces (nil:
	// each proxy lists them).
	namespaces *localproxy.NamespaceIndex

	mu      sync.Mutex
	tenants *lru.Cache // tenant name → *lru.Cache of identity key → *localproxy.Proxy
	held    int        // proxies in the caches (changed under mu only)
	closed  bool
	// revocations counts forget calls: a proxy made for a judgement older
	// than the last one is not kept.
	revocations uint64
}

func newProxies(perTenant int, upstream func(tenant string) *rest.Config) *proxies {
	if perTenant <= 0 {
		perTenant = DefaultMaxProxies
	}
	return &proxies{upstream: upstream, perTenant: perTenant,
		tenants: lru.NewWithEvictionFunc(maxTenants, func(_ lru.Key, v any) { v.(*lru.Cache).Clear() })}
}

// setNamespaces gives the proxies made from now on the index of the
// tenants' namespaces.
func (ps *proxies) setNamespaces(x *localproxy.NamespaceIndex) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.namespaces = x
}

// generation is what get's judgedAt compares with: read it before looking
// the caller's tenant record up.
func (ps *proxies) generation() uint64 {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.revocations
}

// get returns the proxy of id (admin: id's user is in the tenant's
// spec.admins, as the record said at generation judgedAt). A proxy made
// after a tenant was forgotten since judgedAt serves the one request it
// was made for but is not kept, and ends its watches at once: the client
// re-watches and is judged again.
func (ps *proxies) get(id Identity, admin bool, judgedAt uint64) (*localproxy.Proxy, error) {
	key := id.key(admin)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var identities *lru.Cache
	if v, ok := ps.tenants.Get(id.Tenant.Name()); ok {
		identities = v.(*lru.Cache)
		if p, ok := identities.Get(key); ok {
			return p.(*localproxy.Proxy), nil
		}
	}
	p, err := localproxy.New(localproxy.Config{
		Upstream:   ps.upstream(id.Tenant.Name()),
		Tenant:     id.Tenant.Name(),
		User:       id.User,
		Groups:     id.Groups,
		Admin:      admin,
		APIAccess:  ps.apiAccess,
		IsTenant:   ps.isTenant,
		Namespaces: ps.namespaces,
		// The tenant library's client of the policy hooks.
		NewPolicyClient: tenantctl.PolicyClientFor,
	})
	if err != nil {
		return nil, err
	}
	if ps.closed || judgedAt != ps.revocations {
		p.Close() // draining or judged stale: unary requests are served, watches end at once
		return p, nil
	}
	if identities == nil {
		// Every cache change happens under ps.mu, the eviction too.
		identities = lru.NewWithEvictionFunc(ps.perTenant, func(_ lru.Key, v any) {
			v.(*localproxy.Proxy).Close()
			ps.held--
		})
		ps.tenants.Add(id.Tenant.Name(), identities)
	}
	identities.Add(key, p)
	ps.held++
	return p, nil
}

// forget drops every proxy of tenant, ending their watches: its record
// changed in a way that may change who its callers are (tenantIndex.onRevoke).
// The next request of each caller is judged again and gets a new proxy.
func (ps *proxies) forget(tenant string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.revocations++
	ps.tenants.Remove(tenant) // the eviction functions close each proxy
}

// closeAll ends every watch of every proxy (a draining server); proxies
// made afterwards start closed.
func (ps *proxies) closeAll() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	ps.tenants.Clear() // the eviction functions close each proxy
}

// len is the number of proxies held.
func (ps *proxies) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.held
}
