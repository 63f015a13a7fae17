package translate

import "sort"

// ReservedTenantNames returns the names ValidateTenantName refuses although
// they match the tenant name pattern, sorted. Admission (the Tenant CRD's own
// validation) uses it to refuse them upstream as well.
func ReservedTenantNames() []string {
	names := make([]string, 0, len(reservedTenantNames))
	for name := range reservedTenantNames {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
