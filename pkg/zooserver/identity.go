package zooserver

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Identity is an authenticated caller as its tenant sees it.
type Identity struct {
	// Tenant is the caller's tenant.
	Tenant translate.Tenant
	// User is the tenant-local user name ("alice",
	// "system:serviceaccount:default:builder").
	User string
	// Groups are the tenant-local groups, sorted, without the tenant group
	// and system:authenticated (both always added upstream).
	Groups []string
}

// key identifies the proxy that serves the identity (admin: whether the
// tenant's record names the user in spec.admins).
// It is built on every request: one allocation, the string itself.
func (id Identity) key(admin bool) string {
	tenant, adminWord := id.Tenant.Name(), "false"
	if admin {
		adminWord = "true"
	}
	n := len(tenant) + len(id.User) + len(adminWord) + 3
	for i, g := range id.Groups {
		n += len(g) + min(i, 1)
	}
	var b strings.Builder
	b.Grow(n)
	for _, part := range []string{tenant, id.User, adminWord} {
		b.WriteString(part)
		b.WriteByte(0)
	}
	for i, g := range id.Groups {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(g)
	}
	return b.String()
}

const (
	serviceAccountUserPrefix = "system:serviceaccount:"
	authenticatedGroup       = "system:authenticated"
)

// identityOf maps what the authenticator found — the certificate's CN and O,
// or the user TokenReview returned — to a tenant identity. It refuses every
// credential that is not one of a tenant's, and every one whose parts name
// different tenants:
//   - a user zoo:<t>:<user> must be in the group zoo:tenant:<t>; its other
//     groups must be zoo:<t>:<group> (zoo:admins and any group of another
//     tenant or of the cluster, system:masters above all, are refused);
//   - a ServiceAccount system:serviceaccount:<t>-<ns>:<name> belongs to t;
//     its ServiceAccount groups must name its own namespace;
//   - a tenant user is never a ServiceAccount: zoo:<t>:system:serviceaccount:...
//     and the groups zoo:<t>:system:serviceaccounts[:<ns>] are refused, since
//     the proxy would impersonate the ServiceAccount (and its groups) that
//     such a tenant-local name stands for, not the user the credential names;
//   - no name holds a control character (no header carries it upstream).
func identityOf(u user.Info) (Identity, error) {
	name := u.GetName()
	if strings.ContainsFunc(name, unicode.IsControl) {
		return Identity{}, fmt.Errorf("%q holds a control character", name)
	}
	for _, s := range u.GetGroups() {
		if strings.ContainsFunc(s, unicode.IsControl) {
			return Identity{}, fmt.Errorf("%q holds a control character", s)
		}
	}
	if strings.HasPrefix(name, serviceAccountUserPrefix) {
		return serviceAccountIdentity(name, u.GetGroups())
	}
	rest, ok := strings.CutPrefix(name, translate.IdentityPrefix)
	if !ok {
		return Identity{}, fmt.Errorf("%q is no tenant identity (zoo:<tenant>:<user>) nor a tenant ServiceAccount", name)
	}
	tname, local, _ := strings.Cut(rest, ":")
	tenant, err := translate.NewTenant(tname)
	if err != nil || local == "" {
		return Identity{}, fmt.Errorf("%q is no tenant identity (zoo:<tenant>:<user>)", name)
	}
	if strings.HasPrefix(local, serviceAccountUserPrefix) {
		return Identity{}, fmt.Errorf("%q is no ServiceAccount: only a ServiceAccount's token acts as one", name)
	}
	id := Identity{Tenant: tenant, User: local}
	inTenantGroup := false
	for _, g := range u.GetGroups() {
		switch {
		case g == tenant.TenantGroup():
			inTenantGroup = true
		case g == authenticatedGroup:
		default:
			lg, ok := tenant.TenantGroupName(g)
			if !ok || !strings.HasPrefix(g, translate.IdentityPrefix+tenant.Name()+":") || isServiceAccountGroup(lg) {
				return Identity{}, fmt.Errorf("user %q may not be in group %q: a tenant identity's groups are zoo:%s:<group>", name, g, tenant)
			}
			id.Groups = append(id.Groups, lg)
		}
	}
	if !inTenantGroup {
		return Identity{}, fmt.Errorf("user %q is not in its tenant's group %s (the certificate's O must name it)", name, tenant.TenantGroup())
	}
	slices.Sort(id.Groups)
	id.Groups = slices.Compact(id.Groups)
	return id, nil
}

// isServiceAccountGroup reports whether a tenant-local group is one the
// proxy impersonates as a ServiceAccount group upstream.
func isServiceAccountGroup(g string) bool {
	return g == "system:serviceaccounts" || strings.HasPrefix(g, "system:serviceaccounts:")
}

// serviceAccountNamespace is the upstream namespace of a ServiceAccount
// user name.
func serviceAccountNamespace(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, serviceAccountUserPrefix)
	if !ok {
		return "", false
	}
	ns, _, ok := strings.Cut(rest, ":")
	return ns, ok
}

// serviceAccountIdentity maps a ServiceAccount of a tenant namespace.
func serviceAccountIdentity(name string, groups []string) (Identity, error) {
	ns, sa, ok := strings.Cut(strings.TrimPrefix(name, serviceAccountUserPrefix), ":")
	if !ok || sa == "" || strings.Contains(sa, ":") {
		return Identity{}, fmt.Errorf("%q is no ServiceAccount user", name)
	}
	tenant, _, ok := translate.SplitUpstreamName(ns)
	if !ok {
		return Identity{}, fmt.Errorf("ServiceAccount %s/%s is in no tenant's namespace", ns, sa)
	}
	local, _ := tenant.TenantUser(name)
	id := Identity{Tenant: tenant, User: local}
	for _, g := range groups {
		switch g {
		case authenticatedGroup:
		case "system:serviceaccounts", "system:serviceaccounts:" + ns:
			lg, _ := tenant.TenantGroupName(g)
			id.Groups = append(id.Groups, lg)
		default:
			return Identity{}, fmt.Errorf("ServiceAccount %s/%s may not be in group %q", ns, sa, g)
		}
	}
	slices.Sort(id.Groups)
	return id, nil
}
