package localproxy

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// sharedTTL is how long a lookup of a shared object is believed. A
	// class the tenant creates through this proxy is seen at once (forget);
	// one created elsewhere (another proxy, directly upstream) within this.
	sharedTTL = 2 * time.Second
	// sharedCacheSize bounds the entries kept; past it the expired ones go,
	// and if none has expired, all of them.
	sharedCacheSize = 4096
)

// sharedEntry is what a lookup found: the object's labels, if it exists.
type sharedEntry struct {
	labels map[string]string
	exists bool
	at     time.Time
}

// sharedCache holds recent lookups of shared objects. Concurrent misses of
// the same object make one upstream request (singleflight), so a burst of
// requests naming one class cannot multiply into upstream requests either.
type sharedCache struct {
	ttl     time.Duration
	size    int
	mu      sync.Mutex
	entries map[sharedKey]sharedEntry
	flight  singleflight.Group
	now     func() time.Time
}

type sharedKey struct {
	gr   schema.GroupResource
	name string
}

func newSharedCache(ttl time.Duration, size int) *sharedCache {
	return &sharedCache{ttl: ttl, size: size, entries: map[sharedKey]sharedEntry{}, now: time.Now}
}

// get returns the cached entry of gr/name, or fetches, caches and returns it.
func (c *sharedCache) get(gr schema.GroupResource, name string, fetch func() sharedEntry) sharedEntry {
	key := sharedKey{gr, name}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < c.ttl {
		return e
	}
	v, _, _ := c.flight.Do(gr.String()+"/"+name, func() (any, error) {
		e := fetch()
		e.at = c.now()
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.entries) >= c.size {
			c.evictLocked()
		}
		c.entries[key] = e
		return e, nil
	})
	return v.(sharedEntry)
}

// evictLocked drops the expired entries, or all if none has expired.
func (c *sharedCache) evictLocked() {
	now := c.now()
	for k, e := range c.entries {
		if now.Sub(e.at) >= c.ttl {
			delete(c.entries, k)
		}
	}
	if len(c.entries) >= c.size {
		clear(c.entries)
	}
}

// forget drops every entry of gr.
func (c *sharedCache) forget(gr schema.GroupResource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if k.gr == gr {
			delete(c.entries, k)
		}
	}
}
