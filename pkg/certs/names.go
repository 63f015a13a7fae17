package certs

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// maxNameLength bounds a tenant-local user or group name.
const maxNameLength = 64

// nameRE is what a tenant-local user or group name in a certificate may be:
// letters, digits and . _ @ -, starting and ending with a letter or digit
// (an e-mail address fits). No ':' — it separates the parts of identities.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._@-]*[A-Za-z0-9])?$`)

// ValidateUser checks a tenant-local user name for a certificate.
func ValidateUser(user string) error {
	switch {
	case user == "":
		return fmt.Errorf("--user must not be empty")
	case strings.HasPrefix(user, "system:"):
		return fmt.Errorf("user %q is refused: system: names belong to the cluster", user)
	case strings.HasPrefix(user, translate.IdentityPrefix):
		return fmt.Errorf("user %q is refused: give the tenant-local name (alice), not the upstream one", user)
	case len(user) > maxNameLength:
		return fmt.Errorf("user %q is longer than %d characters", user, maxNameLength)
	case !nameRE.MatchString(user):
		return fmt.Errorf("user %q may contain only letters, digits and . _ @ -, and must start and end with a letter or digit", user)
	}
	return nil
}

// TenantGroups validates the --group values of a certificate for tenant and
// returns them as sorted, unique tenant-local names. A group is given
// tenant-local (dev) or upstream (zoo:<tenant>:dev). Refused: groups of
// another tenant, zoo:admins (administrators come from the Tenant record's
// spec.admins, never from a certificate), any tenant group zoo:tenant:<x>
// (the certificate always carries its own), system: groups, and malformed
// names.
func TenantGroups(tenant translate.Tenant, groups []string) ([]string, error) {
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		local, err := tenantGroup(tenant, g)
		if err != nil {
			return nil, err
		}
		out = append(out, local)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func tenantGroup(tenant translate.Tenant, g string) (string, error) {
	switch {
	case g == translate.AdminsGroup:
		return "", fmt.Errorf("group %q is refused: tenant administrators are named in the Tenant record (spec.admins), not by a certificate", g)
	case strings.HasPrefix(g, translate.TenantGroupPrefix):
		return "", fmt.Errorf("group %q is refused: a certificate is always in its own tenant's group %s and in no other", g, tenant.TenantGroup())
	case strings.HasPrefix(g, "system:"):
		return "", fmt.Errorf("group %q is refused: system: groups belong to the cluster", g)
	}
	if rest, ok := strings.CutPrefix(g, translate.IdentityPrefix); ok {
		name, local, _ := strings.Cut(rest, ":")
		if name != tenant.Name() {
			return "", fmt.Errorf("group %q is refused: it names tenant %q, not %q", g, name, tenant.Name())
		}
		g = local
	}
	switch {
	case g == "":
		return "", fmt.Errorf("--group must not be empty")
	case len(g) > maxNameLength:
		return "", fmt.Errorf("group %q is longer than %d characters", g, maxNameLength)
	case !nameRE.MatchString(g):
		return "", fmt.Errorf("group %q may contain only letters, digits and . _ @ -, and must start and end with a letter or digit", g)
	}
	return g, nil
}

// Subject returns the upstream user and groups of a certificate: CN
// zoo:<tenant>:<user>, O zoo:tenant:<tenant> and zoo:<tenant>:<group>.
func Subject(tenant translate.Tenant, user string, groups []string) (cn string, orgs []string) {
	return tenant.UpstreamUser(user), tenant.UpstreamGroups(groups, false)
}
