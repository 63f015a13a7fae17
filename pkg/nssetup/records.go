package nssetup

import (
	"context"
	"sync"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// recordTTL is how long a tenant's record read for a reconcile is used
// again: the namespaces of a tenant seen at start (or relisted) cost one
// read, not one each.
const recordTTL = 10 * time.Second

// recordCache remembers the records read, for recordTTL.
type recordCache struct {
	read func(ctx context.Context, tenant string) (*tenantapi.Tenant, error)
	// readNow reads a record upstream, never from a cache or an informer.
	readNow func(ctx context.Context, tenant string) (*tenantapi.Tenant, error)
	now     func() time.Time
	mu      sync.Mutex
	byT     map[string]cachedRecord
}

type cachedRecord struct {
	rec *tenantapi.Tenant
	at  time.Time
}

func newRecordCache(read, readNow func(ctx context.Context, tenant string) (*tenantapi.Tenant, error)) *recordCache {
	return &recordCache{read: read, readNow: readNow, now: time.Now, byT: map[string]cachedRecord{}}
}

// get returns tenant's record (nil when it has none), read at most
// recordTTL ago. Errors are not remembered.
func (c *recordCache) get(ctx context.Context, tenant string) (*tenantapi.Tenant, error) {
	c.mu.Lock()
	e, ok := c.byT[tenant]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < recordTTL {
		return e.rec, nil
	}
	return c.remember(tenant)(c.read(ctx, tenant))
}

// fresh reads tenant's record upstream (readNow) and remembers it.
func (c *recordCache) fresh(ctx context.Context, tenant string) (*tenantapi.Tenant, error) {
	return c.remember(tenant)(c.readNow(ctx, tenant))
}

// remember returns a function that remembers a record read for tenant,
// unless the read failed.
func (c *recordCache) remember(tenant string) func(*tenantapi.Tenant, error) (*tenantapi.Tenant, error) {
	return func(rec *tenantapi.Tenant, err error) (*tenantapi.Tenant, error) {
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.byT[tenant] = cachedRecord{rec: rec, at: c.now()}
		c.mu.Unlock()
		return rec, nil
	}
}
