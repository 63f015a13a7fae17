package translate

import "strings"

// Identity prefixes. A tenant user "dev" of tenant "acme" is the upstream user
// "zoo:acme:dev" and always belongs to the group "zoo:tenant:acme".
const (
	// IdentityPrefix starts every upstream user and group name of a tenant.
	IdentityPrefix = "zoo:"
	// TenantGroupPrefix starts the group that every identity of a tenant is in.
	TenantGroupPrefix = "zoo:tenant:"
	// DefaultAdminUser is the tenant user `serve` acts as without --user, and
	// the administrator `tenant create` makes without --admin.
	DefaultAdminUser = "admin"
	// AdminsGroup is the upstream group of every tenant's administrators
	// (the users a Tenant names in spec.admins), whatever their tenant. One
	// ClusterRoleBinding grants it the cluster-scoped rights of tenant
	// admins, so their number does not grow with the tenants; admission
	// confines every write to the tenant the identity names. It names no
	// tenant and no tenant-local group maps to it (UpstreamGroup always
	// makes "zoo:<tenant>:<group>"), so a tenant can never bind it.
	AdminsGroup = IdentityPrefix + "admins"
)

// UpstreamGroups returns the upstream groups of a tenant user in the
// tenant-local groups: the tenant group first, then each group mapped by
// UpstreamGroup, and AdminsGroup when the user is one of the tenant's
// administrators.
func (t Tenant) UpstreamGroups(groups []string, admin bool) []string {
	out := []string{t.TenantGroup()}
	for _, g := range groups {
		if ug := t.UpstreamGroup(g); ug != t.TenantGroup() {
			out = append(out, ug)
		}
	}
	if admin {
		out = append(out, AdminsGroup)
	}
	return out
}

// TenantGroup returns the upstream group every identity of the tenant is in:
// "zoo:tenant:<tenant>".
func (t Tenant) TenantGroup() string { return TenantGroupPrefix + t.name }

// UpstreamUser maps a tenant-local user name to the upstream user name.
// ServiceAccount users follow their namespace:
// system:serviceaccount:default:builder ↔ system:serviceaccount:acme-default:builder.
func (t Tenant) UpstreamUser(user string) string {
	if ns, name, ok := splitServiceAccountUser(user); ok {
		return serviceAccountUserPrefix + t.Prefix() + ns + ":" + name
	}
	return IdentityPrefix + t.name + ":" + user
}

// UpstreamGroup maps a tenant-local group to the upstream group name.
// system:serviceaccounts:default ↔ system:serviceaccounts:acme-default;
// system:serviceaccounts and system:authenticated stay as they are, since
// they only ever widen to what the tenant group already confines.
func (t Tenant) UpstreamGroup(group string) string {
	switch {
	case strings.HasPrefix(group, serviceAccountGroupPrefix):
		return serviceAccountGroupPrefix + t.Prefix() + strings.TrimPrefix(group, serviceAccountGroupPrefix)
	case group == "system:serviceaccounts", group == "system:authenticated":
		return group
	}
	return IdentityPrefix + t.name + ":" + group
}

// TenantUser maps an upstream user name back to the tenant-local name. ok is
// false when the user is not one of this tenant's identities.
func (t Tenant) TenantUser(upstream string) (string, bool) {
	if ns, name, ok := splitServiceAccountUser(upstream); ok {
		if !t.Owns(ns) {
			return "", false
		}
		return serviceAccountUserPrefix + strings.TrimPrefix(ns, t.Prefix()) + ":" + name, true
	}
	p := IdentityPrefix + t.name + ":"
	if strings.HasPrefix(upstream, p) && len(upstream) > len(p) {
		return strings.TrimPrefix(upstream, p), true
	}
	return "", false
}

// TenantGroupName maps an upstream group back to the tenant-local group. ok is
// false for groups that do not belong to this tenant. The tenant group itself
// is not shown to the tenant (ok is false for it).
func (t Tenant) TenantGroupName(upstream string) (string, bool) {
	switch {
	case strings.HasPrefix(upstream, serviceAccountGroupPrefix):
		ns := strings.TrimPrefix(upstream, serviceAccountGroupPrefix)
		if !t.Owns(ns) {
			return "", false
		}
		return serviceAccountGroupPrefix + strings.TrimPrefix(ns, t.Prefix()), true
	case upstream == "system:serviceaccounts", upstream == "system:authenticated":
		return upstream, true
	}
	p := IdentityPrefix + t.name + ":"
	if strings.HasPrefix(upstream, p) && len(upstream) > len(p) {
		return strings.TrimPrefix(upstream, p), true
	}
	return "", false
}

const (
	serviceAccountUserPrefix  = "system:serviceaccount:"
	serviceAccountGroupPrefix = "system:serviceaccounts:"
)

func splitServiceAccountUser(user string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(user, serviceAccountUserPrefix)
	if !found {
		return "", "", false
	}
	namespace, name, found = strings.Cut(rest, ":")
	if !found || namespace == "" || name == "" {
		return "", "", false
	}
	return namespace, name, true
}
