package zooserver

import (
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/utils/lru"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
)

// DefaultMaxProxies bounds how many identities' proxies a server holds.
const DefaultMaxProxies = 4096

// proxies makes the translating proxy of an identity on first use and keeps
// the most recently used ones. A proxy holds no connection of its own (the
// upstream transport is shared through client-go's transport cache), only
// its identity and caches, so an evicted one is closed — ending its watches,
// which clients resume — and made again when its identity returns.
type proxies struct {
	upstream func(tenant string) *rest.Config
	// apiAccess is given to every proxy (nil: none).
	apiAccess *localproxy.APIAccess

	mu     sync.Mutex
	cache  *lru.Cache
	closed bool
}

func newProxies(max int, upstream func(tenant string) *rest.Config) *proxies {
	if max <= 0 {
		max = DefaultMaxProxies
	}
	return &proxies{upstream: upstream, cache: lru.NewWithEvictionFunc(max, func(_ lru.Key, v any) { v.(*localproxy.Proxy).Close() })}
}

// get returns the proxy of id (admin: id's user is in the tenant's
// spec.admins).
func (ps *proxies) get(id Identity, admin bool) (*localproxy.Proxy, error) {
	key := id.key(admin)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if v, ok := ps.cache.Get(key); ok {
		return v.(*localproxy.Proxy), nil
	}
	p, err := localproxy.New(localproxy.Config{
		Upstream:  ps.upstream(id.Tenant.Name()),
		Tenant:    id.Tenant.Name(),
		User:      id.User,
		Groups:    id.Groups,
		Admin:     admin,
		APIAccess: ps.apiAccess,
	})
	if err != nil {
		return nil, err
	}
	if ps.closed {
		p.Close() // draining: unary requests are served, watches end at once
	} else {
		ps.cache.Add(key, p)
	}
	return p, nil
}

// closeAll ends every watch of every proxy (a draining server); proxies
// made afterwards start closed.
func (ps *proxies) closeAll() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	ps.cache.Clear() // the eviction function closes each
}

// len is the number of proxies held.
func (ps *proxies) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.cache.Len()
}
