package certs

import (
	"context"
	"fmt"
	"time"
)

// Selector picks the certificates to revoke: one serial (in Tenant, or
// searched in every tenant when Tenant is empty), or every certificate of
// Tenant's User.
type Selector struct {
	Serial, Tenant, User string
}

// Validate checks that exactly one of the two forms is given.
func (s Selector) Validate() error {
	switch {
	case s.Serial != "" && s.User != "":
		return fmt.Errorf("give a SERIAL or --tenant and --user, not both")
	case s.Serial == "" && (s.Tenant == "" || s.User == ""):
		return fmt.Errorf("give a SERIAL, or --tenant and --user")
	}
	return nil
}

func (s Selector) match(r Record) bool {
	if s.Serial != "" {
		return r.Serial == s.Serial
	}
	return r.User == s.User
}

// Revoke marks the selected certificates revoked in their Tenant record and
// returns them; certificates already revoked are not returned again. It
// fails when nothing matches.
func Revoke(ctx context.Context, c Client, s Selector, now time.Time) ([]Listed, error) {
	tenant := s.Tenant
	if tenant == "" {
		found, err := Find(ctx, c, s.Serial, now)
		if err != nil {
			return nil, err
		}
		tenant = found.Tenant
	}
	var revoked []Record
	matched := false
	err := updateCertificates(ctx, c.Dynamic, tenant, "", func(cur Certificates) (Certificates, error) {
		matched = false
		for _, r := range cur.Issued {
			matched = matched || s.match(r)
		}
		var next Certificates
		next, revoked = cur.revoke(s.match, now)
		if s.Serial == "" {
			// Certificates of the user being issued now are recorded
			// revoked (Issue), even when none is recorded yet.
			next = next.withUserRevoked(s.User)
		}
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	// Upstream, a certificate of the cluster's signer acts only through
	// its grant (grant.go): it goes with the revocation.
	if err := SyncGrants(ctx, c, tenant, now); err != nil {
		return nil, err
	}
	if !matched {
		if s.Serial != "" {
			return nil, fmt.Errorf("tenant %q has no certificate with serial %s", tenant, s.Serial)
		}
		return nil, fmt.Errorf("tenant %q has no certificate of user %q", tenant, s.User)
	}
	out := make([]Listed, 0, len(revoked))
	for _, r := range revoked {
		out = append(out, listed(tenant, r, now))
	}
	return out, nil
}

// Find returns the recorded certificate with serial, in whichever tenant.
func Find(ctx context.Context, c Client, serial string, now time.Time) (Listed, error) {
	all, err := List(ctx, c, "", now)
	if err != nil {
		return Listed{}, err
	}
	for _, l := range all {
		if l.Serial == serial {
			return l, nil
		}
	}
	return Listed{}, fmt.Errorf("no tenant has a certificate with serial %s", serial)
}
