package translate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Options carries the lookups the proxy provides to the pure core.
type Options struct {
	// Scopes tells the scope of resources that are not in the kinds table.
	Scopes ScopeLookup
	// Shared resolves references to shared kinds (storage classes, ...).
	// Without it, references to shared kinds stay unprefixed (the cluster's).
	Shared SharedLookup
	// Platform reads what platform-owned metadata and pod priorities are
	// judged against. Without it, updates keep no platform-owned metadata
	// of their own accord, namespaces get DefaultPodSecurityLevel and pod
	// priorities are left to the upstream's admission.
	Platform PlatformLookup
	// APIAccess injects into every pod and pod template written the tenant
	// view's in-cluster API access (apiaccess.go): set by the multi-tenant
	// server, whose address and CA the ConfigMap APIAccessName of each
	// namespace holds. Reads hide it whether or not it is set.
	APIAccess bool
}

// Translator translates requests and responses for one tenant. It is safe for
// concurrent use.
type Translator struct {
	tenant Tenant
	opts   Options
	toUp   *mapper
	toTen  *mapper
}

// New returns the Translator of a tenant.
func New(tenant Tenant, opts Options) *Translator {
	t := &Translator{tenant: tenant, opts: opts}
	t.toUp = &mapper{t: t, in: true}
	t.toTen = &mapper{t: t, in: false}
	return t
}

// Tenant returns the translator's tenant.
func (t *Translator) Tenant() Tenant { return t.tenant }

// mapper maps names in one direction: in (tenant → upstream) or out.
type mapper struct {
	t  *Translator
	in bool
	// lookups, when set, counts what resolving this object's references to
	// shared kinds may still ask the upstream (SharedLookup).
	lookups *lookupBudget
	// lists caches the lists of the tenant's policy this object's
	// references read (volume sources, ingress hosts): each is read once
	// per object, however many volumes or hosts it has.
	lists map[string][]string
}

// policyList returns the list key of the tenant's policy, read with read
// once per object (a mapper of one object) and cached there.
func (m *mapper) policyList(key string, read func() ([]string, error)) ([]string, error) {
	if m.lists == nil {
		return read() // the shared mapper of a translator without lookups
	}
	if l, ok := m.lists[key]; ok {
		return l, nil
	}
	l, err := read()
	if err == nil {
		m.lists[key] = l
	}
	return l, err
}

func (m *mapper) tenant() Tenant { return m.t.tenant }

// foreign is the error of an outbound name that is not the tenant's.
func foreign(what, name string) error {
	return fmt.Errorf("%s %q: %w", what, name, ErrNotTenants)
}

func (m *mapper) namespace(ns string) (string, error) {
	if ns == "" {
		return "", nil
	}
	if m.in {
		return m.tenant().UpstreamNamespace(ns)
	}
	if local, ok := m.tenant().TenantNamespace(ns); ok {
		return local, nil
	}
	return "", foreign("namespace", ns)
}

func (m *mapper) apiGroup(g string) (string, error) {
	if m.in {
		return m.tenant().UpstreamAPIGroup(g)
	}
	if local, ok := m.tenant().TenantAPIGroup(g); ok {
		return local, nil
	}
	return "", foreign("API group", g)
}

func (m *mapper) apiVersion(av string) (string, error) {
	if m.in {
		return m.tenant().UpstreamAPIVersion(av)
	}
	if local, ok := m.tenant().TenantAPIVersion(av); ok {
		return local, nil
	}
	return "", foreign("apiVersion", av)
}

// objectName maps the name of an object of the given rule.
func (m *mapper) objectName(r *KindRule, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	switch {
	case r.NameIsNamespace:
		return m.namespace(name)
	case r.Resource == grCRD:
		if m.in {
			return m.tenant().UpstreamCRDName(name)
		}
		if local, ok := m.tenant().TenantCRDName(name); ok {
			return local, nil
		}
		return "", foreign(r.Resource.String(), name)
	case r.Treatment == TenantOwned:
		if m.in {
			return m.tenant().UpstreamClusterName(r.Kind, r.Resource.Group, name)
		}
		if local, ok := m.tenant().TenantClusterName(name); ok {
			return local, nil
		}
		return "", foreign(r.Resource.String(), name)
	case r.Treatment == Shared:
		return m.sharedRef(r.Resource, name)
	}
	return name, nil
}

// sharedRef maps a reference to a shared kind: in, the tenant's own object
// first, else the cluster's; out, the tenant's own shown unprefixed, the
// cluster's as it is, another tenant's as ErrNotTenants (left out).
func (m *mapper) sharedRef(gr schema.GroupResource, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if m.in {
		if err := m.lookups.take(gr, name); err != nil {
			return "", err
		}
		if sh := m.t.opts.Shared; sh != nil && !sh.TenantOwns(gr, name) && sh.OtherTenantOwns(gr, name) {
			return "", forbidden(gr, name, "it is another tenant's: a reference names the tenant's own object or the cluster's")
		}
		return m.t.ResolveSharedRef(gr, name), nil
	}
	if local, ok := m.tenant().TenantClusterName(name); ok {
		return local, nil
	}
	if m.t.otherTenantsName(name) {
		// Another tenant's (an upstream admin or controller wrote it):
		// shown as it is, the name would stand for the tenant's own
		// object of that name, or else name nothing of its cluster.
		return "", foreign(gr.String(), name)
	}
	return name, nil
}

// otherTenantsName reports whether an upstream name of a shared object is
// in another tenant's prefix. It is decided from the tenants' names
// (OtherTenantsLister), without looking the object up: an answer names
// shared objects item by item, and a lookup per distinct name would
// multiply the upstream requests of one list by its distinct names.
// Without the lister, or when the tenants cannot be read, no name is.
func (t *Translator) otherTenantsName(name string) bool {
	lister, ok := t.opts.Shared.(OtherTenantsLister)
	if !ok {
		return false
	}
	for i := 1; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		if owner := name[:i]; owner != t.tenant.Name() && ValidateTenantName(owner) == nil && lister.IsOtherTenant(owner) {
			return true
		}
	}
	return false
}

// ResolveSharedRef resolves a reference from a tenant object to a shared kind
// (storageClassName, ingressClassName, priorityClassName, runtimeClassName):
// the tenant's own object of that name if it has one, else the cluster's. It
// returns the upstream name. Without Options.Shared the cluster's is assumed.
func (t *Translator) ResolveSharedRef(gr schema.GroupResource, name string) string {
	if t.opts.Shared != nil && t.opts.Shared.TenantOwns(gr, name) {
		return t.tenant.Prefix() + name
	}
	return name
}
