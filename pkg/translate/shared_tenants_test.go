package translate

import "slices"

// sharedWithTenants is fakeShared that also names the other tenants.
type sharedWithTenants struct {
	fakeShared
	tenants []string
}

func (s sharedWithTenants) IsOtherTenant(name string) bool { return slices.Contains(s.tenants, name) }
