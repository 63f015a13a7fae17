package translate

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// External names: a Service's externalName outside the cluster, allowed
// only when the platform's policy for the tenant names it (`kubectl zoo
// policy set T --external-names`). A pattern is a DNS name, or "*." and a
// DNS name, where "*" stands for exactly one label (as in a TLS
// certificate). None is allowed by default. Upstream, the tenant's patterns
// are a grant the zoo-tenant policy asks the authorizer about
// (pkg/policyctl/externalnames.go), for the name and for its
// one-label wildcard.

// ExternalNameLookup is an optional extension of PlatformLookup: the
// external names the tenant's policy allows. Without it, none is allowed.
type ExternalNameLookup interface {
	AllowedExternalNames() ([]string, error)
}

// ValidateExternalNamePattern reports why pattern may not be an allowed
// external name: it must be a lower-case DNS name (after an optional "*."),
// with at least two labels, no IP address in any spelling (the last label
// is not numeric), and nothing of the cluster's own names (localhost,
// *.svc, the cluster domain), which only a tenant's own Services may be.
func ValidateExternalNamePattern(pattern string) error {
	name := strings.TrimPrefix(pattern, "*.")
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("%q: %s", pattern, strings.Join(msgs, "; "))
	}
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	switch {
	case len(labels) < 2:
		return fmt.Errorf("%q: a single label is resolved in the cluster's search domains", pattern)
	case strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x"):
		return fmt.Errorf("%q: IP addresses are not names", pattern)
	case last == "localhost" || last == "svc" || name == ClusterDomain || strings.HasSuffix(name, "."+ClusterDomain) || strings.HasSuffix(name, ".svc"):
		return fmt.Errorf("%q: the cluster's own names are not external", pattern)
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return fmt.Errorf("%q: IP addresses are not names", pattern)
	}
	return nil
}

// ExternalNameAllowed reports whether name (a final dot ignored) is one of
// patterns, or matches a "*." pattern with exactly one label in front; a
// name with a "*" of its own matches nothing.
func ExternalNameAllowed(patterns []string, name string) bool {
	name = strings.TrimSuffix(name, ".")
	if strings.Contains(name, "*") {
		return false
	}
	if slices.Contains(patterns, name) {
		return true
	}
	_, parent, ok := strings.Cut(name, ".")
	return ok && slices.Contains(patterns, "*."+parent)
}

// allowedExternalName reports whether the tenant's policy allows name.
func (m *mapper) allowedExternalName(name string) (bool, error) {
	l, ok := m.t.opts.Platform.(ExternalNameLookup)
	if !ok {
		return false, nil
	}
	patterns, err := l.AllowedExternalNames()
	if err != nil {
		return false, lookupError("read the external names the tenant's policy allows", err)
	}
	return ExternalNameAllowed(patterns, name), nil
}
