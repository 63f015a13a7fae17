package certs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ValidateUser checks a tenant-local user name for a certificate.
func ValidateUser(user string) error { return tenantapi.ValidateLocalUser("--user", user) }

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
	if err := tenantapi.ValidateLocalName("--group", "group", g); err != nil {
		return "", err
	}
	return g, nil
}

// Subject returns the upstream user and groups of a certificate of the zoo
// CA: CN zoo:<tenant>:<user>, O zoo:tenant:<tenant> and
// zoo:<tenant>:<group>. (One of the cluster's signer names a user of its
// own, grant.go.)
func Subject(tenant translate.Tenant, user string, groups []string) (cn string, orgs []string) {
	return tenant.UpstreamUser(user), tenant.UpstreamGroups(groups, false)
}
