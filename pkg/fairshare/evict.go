package fairshare

import (
	"cmp"
	"slices"
	"time"
)

// evict makes room for new tenants (l.mu held): it drops every idle tenant
// (nothing in flight, its bucket full: dropping it changes nothing, a new
// state starts the same), and when that frees less than an eighth of the
// bound, the least recently used others down to seven eighths of it. A
// tenant dropped while busy starts again with a full bucket and no slot
// counted: a bounded loss of fairness for that tenant only, and only when
// more than maxTenants tenants are busy at once. Eviction costs
// O(n log n) once per maxTenants/8 new tenants.
func (l *Limiter) evict(now time.Time) {
	for name, b := range l.tenants {
		if b.idle(now) {
			delete(l.tenants, name)
		}
	}
	keep := l.maxTenants - max(1, l.maxTenants/8)
	if len(l.tenants) <= keep {
		return
	}
	type entry struct {
		name string
		used int64
	}
	entries := make([]entry, 0, len(l.tenants))
	for name, b := range l.tenants {
		entries = append(entries, entry{name, b.lastUsed.Load()})
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.used, b.used) })
	for _, e := range entries[:len(entries)-keep] {
		delete(l.tenants, e.name)
	}
}

// idle reports whether b is the same as a new state: nothing in flight and
// a full bucket.
func (b *bucket) idle(now time.Time) bool {
	if b.inflight.Load() != 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limits.QPS == 0 || b.tokens.TokensAt(now) >= float64(b.limits.Burst)
}
