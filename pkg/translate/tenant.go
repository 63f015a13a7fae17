// Package translate is the pure core of kubectl-zoo: it maps what a tenant sees
// to what the shared (upstream) cluster stores, and back. It does no network
// I/O, no printing and knows nothing of cobra; the local proxy, the server
// deployment and `kubectl zoo explain` all build on it.
package translate

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxTenantNameLength is the longest tenant name allowed. With the separator
// the prefix is at most 13 characters, which leaves 50 for a namespace.
const MaxTenantNameLength = 12

// Separator joins a tenant name and a tenant-local name. Tenant names never
// contain it, so an upstream name splits unambiguously at its first Separator.
const Separator = "-"

var tenantNameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,11}$`)

// reservedTenantNames may not name a tenant, because their prefix or identity
// names are already taken upstream:
//   - "kube": kube-system, kube-public and kube-node-lease are the cluster's own;
//   - "tenant": "zoo:tenant:<x>" is the group of tenant x, so tenant "tenant"'s
//     group "x" would become tenant x's group;
//   - "zoo": kubectl-zoo's own objects (namespace zoo-system) live there;
//   - "system": kept free for the cluster's own names.
var reservedTenantNames = map[string]string{
	"kube":   "kube-system, kube-public and kube-node-lease belong to the cluster",
	"tenant": "its identities would clash with every tenant's group zoo:tenant:<name>",
	"zoo":    "kubectl-zoo keeps its own objects under the zoo- prefix",
	"system": "it is kept for the cluster's own names",
}

// ValidateTenantName returns an error that explains why name is not a valid
// tenant name, or nil. Valid names match ^[a-z][a-z0-9]{0,11}$ and are not
// reserved.
func ValidateTenantName(name string) error {
	if why, reserved := reservedTenantNames[name]; reserved {
		return fmt.Errorf("tenant name %q is reserved: %s", name, why)
	}
	if tenantNameRE.MatchString(name) {
		return nil
	}
	switch {
	case name == "":
		return fmt.Errorf("tenant name must not be empty")
	case len(name) > MaxTenantNameLength:
		return fmt.Errorf("tenant name %q is longer than %d characters", name, MaxTenantNameLength)
	case name[0] < 'a' || name[0] > 'z':
		return fmt.Errorf("tenant name %q must start with a lower-case letter a-z", name)
	default:
		return fmt.Errorf("tenant name %q may contain only lower-case letters a-z and digits 0-9 (no %q)", name, Separator)
	}
}

// Tenant is a validated tenant name. The zero value is not usable; obtain one
// from NewTenant.
type Tenant struct {
	name string
}

// NewTenant validates name and returns the Tenant it names.
func NewTenant(name string) (Tenant, error) {
	if err := ValidateTenantName(name); err != nil {
		return Tenant{}, err
	}
	return Tenant{name: name}, nil
}

// MustTenant is NewTenant for names known to be valid, such as constants in
// tests; it panics on an invalid name.
func MustTenant(name string) Tenant {
	t, err := NewTenant(name)
	if err != nil {
		panic(err)
	}
	return t
}

// Name returns the tenant's name.
func (t Tenant) Name() string { return t.name }

// Prefix returns the prefix the tenant's objects carry upstream: "<tenant>-".
func (t Tenant) Prefix() string { return t.name + Separator }

// String returns the tenant's name.
func (t Tenant) String() string { return t.name }

// Owns reports whether upstreamName carries this tenant's prefix (separator
// included: tenant "kube" never owns "kubes-x" nor "kube").
func (t Tenant) Owns(upstreamName string) bool {
	p := t.Prefix()
	return len(upstreamName) > len(p) && strings.HasPrefix(upstreamName, p)
}

// SplitUpstreamName splits an upstream name into the tenant that owns it and
// the tenant-local name. ok is false for names that belong to no tenant.
func SplitUpstreamName(upstreamName string) (tenant Tenant, local string, ok bool) {
	name, rest, found := strings.Cut(upstreamName, Separator)
	if !found || rest == "" || ValidateTenantName(name) != nil {
		return Tenant{}, "", false
	}
	return Tenant{name: name}, rest, true
}

// Names kubectl-zoo uses upstream.
const (
	// APIGroup is the API group of kubectl-zoo's own upstream objects (the
	// cluster-scoped Tenant CRD).
	APIGroup = "zoo.kubectl-zoo.io"
	// TenantLabel marks an upstream object as owned by a tenant; its value is
	// the tenant's name. The proxy sets it on what a tenant creates at cluster
	// scope (namespaces above all), hides it from the tenant, and uses it as an
	// upstream label selector so that lists stay correctly paged. Admission
	// keeps tenants from setting or changing it.
	TenantLabel = APIGroup + "/tenant"
)
