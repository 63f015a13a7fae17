package localproxy

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLockTenant: one tenant's holders are serialized, another tenant is
// never held up by it, and nothing is left in the map afterwards.
func TestLockTenant(t *testing.T) {
	unlockA := LockTenant("acme")
	done := make(chan struct{})
	go func() { LockTenant("beta")(); close(done) }()
	<-done // beta is not held up by acme
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := LockTenant("acme")
			n := inside.Add(1)
			if n > most.Load() {
				most.Store(n)
			}
			inside.Add(-1)
			unlock()
		}()
	}
	unlockA()
	wg.Wait()
	assert.Equal(t, int32(1), most.Load())
	tenantLocks.Lock()
	defer tenantLocks.Unlock()
	assert.Empty(t, tenantLocks.held)
}
