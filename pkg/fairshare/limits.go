package fairshare

import (
	"golang.org/x/time/rate"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// Limits are a tenant's effective limits: a policy.RateLimit made
// consistent (negative is none, a burst below the qps is the qps).
type Limits struct {
	// QPS refills the bucket per second; 0 is no rate limit.
	QPS int32
	// Burst is the bucket's size (at least QPS when QPS is set).
	Burst int32
	// MaxInflight bounds the requests served at once; 0 is no bound.
	MaxInflight int32
}

// LimitsOf returns the effective limits of r (nil is none). A record whose
// rateLimit is invalid (`policy set` refuses to write one, but the record
// is an object anyone with the right may edit) still gets what can be
// enforced of it: a negative value is no limit, a burst below the qps is the
// qps.
func LimitsOf(r *policy.RateLimit) Limits {
	if r == nil {
		return Limits{}
	}
	l := Limits{QPS: max(r.QPS, 0), Burst: max(r.Burst, 0), MaxInflight: max(r.MaxInflight, 0)}
	if l.QPS == 0 {
		l.Burst = 0
	} else if l.Burst < l.QPS {
		l.Burst = l.QPS
	}
	return l
}

// None reports whether l limits nothing.
func (l Limits) None() bool { return l.QPS == 0 && l.MaxInflight == 0 }

func (l Limits) rate() rate.Limit {
	if l.QPS == 0 {
		return rate.Inf
	}
	return rate.Limit(l.QPS)
}
