package policyctl

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakeLeases answers a renewer's updates with the errors it is given, in
// turn, then with success.
type fakeLeases struct {
	mu      sync.Mutex
	errs    []error
	renewed []time.Time
}

func (f *fakeLeases) Update(_ context.Context, l *coordinationv1.Lease, _ metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	f.renewed = append(f.renewed, l.Spec.RenewTime.Time)
	return l.DeepCopy(), nil
}

func (f *fakeLeases) renewals() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.renewed)
}

// TestLeaseRenewer: a held Lease is renewed while its holder works, so a
// long sleep or rebalance keeps it past its TTL; when another writer took
// it (a conflict, or the Lease is gone), or no renewal succeeded for a whole
// TTL, the holder's context is cancelled with the reason, so it stops
// writing; a transient error within the TTL is retried.
func TestLeaseRenewer(t *testing.T) {
	lost := errors.New("lost the lock")
	gr := schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	transient := apierrors.NewServiceUnavailable("etcd is slow")
	cases := []struct {
		name     string
		errs     []error
		lost     bool
		renewals int           // at least
		ttl      time.Duration // 60ms unless set
	}{
		{name: "renewed while held", renewals: 3},
		{name: "taken by another writer", errs: []error{apierrors.NewConflict(gr, "zoo-sleep-acme", errors.New("changed"))}, lost: true},
		{name: "deleted", errs: []error{apierrors.NewNotFound(gr, "zoo-sleep-acme")}, lost: true},
		{name: "a transient error is retried", errs: []error{transient}, renewals: 2, ttl: time.Second},
		{name: "no renewal for a whole TTL", errs: []error{transient, transient, transient, transient}, lost: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeLeases{errs: tc.errs}
			ttl := tc.ttl
			if ttl == 0 {
				ttl = 60 * time.Millisecond
			}
			r := &leaseRenewer{leases: f, held: &coordinationv1.Lease{}, ttl: ttl, lost: lost}
			ctx, cancel := context.WithCancelCause(context.Background())
			stop, stopped := make(chan struct{}), make(chan struct{})
			go func() { defer close(stopped); r.run(ctx, cancel, stop) }()
			if tc.lost {
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("the holder's context was not cancelled")
				}
				assert.ErrorIs(t, context.Cause(ctx), lost)
				<-stopped
				return
			}
			require.Eventually(t, func() bool { return f.renewals() >= tc.renewals }, 5*time.Second, 5*time.Millisecond)
			close(stop)
			<-stopped
			assert.NoError(t, ctx.Err(), "a held Lease leaves the holder's context alone")
			f.mu.Lock()
			defer f.mu.Unlock()
			for i := 1; i < len(f.renewed); i++ {
				assert.True(t, f.renewed[i].After(f.renewed[i-1]), "each renewal moves RenewTime")
			}
		})
	}
}
