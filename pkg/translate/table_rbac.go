package translate

import "strings"

// rbacCellsOut translates the cells `kubectl get rolebindings` and
// `clusterrolebindings` show (-o wide adds the subjects), as the same
// binding's roleRef and subjects are translated in JSON: the Role cell
// "ClusterRole/acme-view" reads "ClusterRole/view", and a binding to a
// ClusterRole that is not the tenant's (the RoleBinding kubectl-zoo keeps in
// every tenant namespace) is not the tenant's either. Subjects of other
// tenants or of the cluster are left out, as in JSON.
func (t *Translator) rbacCellsOut(cells []any, cols columns) error {
	if s, ok := cell(cells, cols.role); ok {
		if name, isCluster := strings.CutPrefix(s, "ClusterRole/"); isCluster {
			local, ok := t.tenant.TenantClusterName(name)
			if !ok {
				return foreign("roleRef", name)
			}
			cells[cols.role] = "ClusterRole/" + local
		}
	}
	mapCell(cells, cols.users, t.tenant.TenantUser)
	mapCell(cells, cols.groups, t.tenantGroupCell)
	mapCell(cells, cols.accounts, func(sa string) (string, bool) {
		ns, name, found := strings.Cut(sa, "/")
		if !found {
			return "", false
		}
		local, ok := t.tenant.TenantNamespace(ns)
		return local + "/" + name, ok
	})
	return nil
}

// tenantGroupCell maps a group as binding subjects show it: the tenant's
// group zoo:tenant:<t> is the tenant's system:authenticated.
func (t *Translator) tenantGroupCell(g string) (string, bool) {
	if g == t.tenant.TenantGroup() {
		return "system:authenticated", true
	}
	return t.tenant.TenantGroupName(g)
}

func cell(cells []any, i int) (string, bool) {
	if i < 0 || i >= len(cells) {
		return "", false
	}
	s, ok := cells[i].(string)
	return s, ok && s != ""
}

// mapCell maps every entry of a comma-separated cell, leaving out those that
// do not map.
func mapCell(cells []any, i int, m func(string) (string, bool)) {
	s, ok := cell(cells, i)
	if !ok {
		return
	}
	var out []string
	for _, e := range strings.Split(s, ",") {
		if local, ok := m(strings.TrimSpace(e)); ok {
			out = append(out, local)
		}
	}
	cells[i] = strings.Join(out, ", ")
}
