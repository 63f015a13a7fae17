package policy

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Change is one `kubectl zoo policy set`: a nil field leaves the policy's
// field as it is, so only the flags given change anything. The empty value
// of a field clears it: "" for the strings, 0 for the numbers (see Apply).
type Change struct {
	// MaxNamespaces: 0 clears the bound.
	MaxNamespaces *int32
	// Quota in the form of ParseResourceList; "" clears the quota.
	Quota *string
	// LimitRange in the form of ParseLimitRange; "" clears it.
	LimitRange *string
	// PodSecurity is a level; "" resets it to the default (Default).
	PodSecurity *string
	// NetworkIsolation is tenant or none; "" resets it to the default.
	NetworkIsolation *string
	// PriorityClasses is a comma-separated list; "" allows none.
	PriorityClasses *string
	// ExternalNames is a comma-separated list of names and "*." patterns;
	// "" allows none.
	ExternalNames *string
	// VolumeSources is a comma-separated list of volume sources; "" allows
	// none.
	VolumeSources *string
	// IngressHosts is a comma-separated list of host names and patterns;
	// "" allows none.
	IngressHosts *string
	// QPS, Burst and MaxInflight change RateLimit; 0 is no limit, and a
	// RateLimit of three zeros is removed. When QPS is set and the burst
	// would stay 0, the burst becomes QPS.
	QPS, Burst, MaxInflight *int32
	// SleepAfter is a duration (30m); "" or "0" never sleeps.
	SleepAfter *string
}

// Apply returns p changed by c, validated. It does not fill in defaults.
func (c Change) Apply(p Policy) (Policy, error) {
	out := p
	if c.MaxNamespaces != nil {
		out.MaxNamespaces = nil
		if *c.MaxNamespaces != 0 {
			n := *c.MaxNamespaces
			out.MaxNamespaces = &n
		}
	}
	if c.Quota != nil {
		out.Quota = nil
		if strings.TrimSpace(*c.Quota) != "" {
			list, err := ParseResourceList(*c.Quota)
			if err != nil {
				return p, err
			}
			out.Quota = list
		}
	}
	if c.LimitRange != nil {
		out.LimitRange = nil
		if strings.TrimSpace(*c.LimitRange) != "" {
			lr, err := ParseLimitRange(*c.LimitRange)
			if err != nil {
				return p, err
			}
			out.LimitRange = lr
		}
	}
	if c.PodSecurity != nil {
		out.PodSecurity = *c.PodSecurity
	}
	if c.NetworkIsolation != nil {
		out.NetworkIsolation = *c.NetworkIsolation
	}
	if c.PriorityClasses != nil {
		var names []string
		for _, s := range strings.Split(*c.PriorityClasses, ",") {
			if s = strings.TrimSpace(s); s != "" {
				names = append(names, s)
			}
		}
		out.PriorityClasses = CanonicalClasses(names)
	}
	if c.ExternalNames != nil {
		out.ExternalNames = CanonicalClasses(splitList(*c.ExternalNames))
	}
	if c.VolumeSources != nil {
		out.VolumeSources = CanonicalClasses(splitList(*c.VolumeSources))
	}
	if c.IngressHosts != nil {
		out.IngressHosts = CanonicalClasses(splitList(*c.IngressHosts))
	}
	if c.QPS != nil || c.Burst != nil || c.MaxInflight != nil {
		rl := RateLimit{}
		if p.RateLimit != nil {
			rl = *p.RateLimit
		}
		set := func(dst *int32, v *int32) {
			if v != nil {
				*dst = *v
			}
		}
		set(&rl.QPS, c.QPS)
		set(&rl.Burst, c.Burst)
		set(&rl.MaxInflight, c.MaxInflight)
		if c.Burst == nil && rl.QPS > 0 && rl.Burst == 0 {
			rl.Burst = rl.QPS
		}
		out.RateLimit = &rl
		if rl == (RateLimit{}) {
			out.RateLimit = nil
		}
	}
	if c.SleepAfter != nil {
		out.SleepAfter = nil
		if v := strings.TrimSpace(*c.SleepAfter); v != "" && v != "0" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return p, fmt.Errorf("sleepAfter: %w", err)
			}
			out.SleepAfter = &metav1.Duration{Duration: d}
		}
	}
	if err := out.Validate(); err != nil {
		return p, err
	}
	return out, nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
