package localproxy

import "net/http"

// namespaceGrants gives a namespace the tenant has just made what it
// needs: the tenant's policy objects, its admins' RoleBindings and its
// ClusterRoleBindings (namespace_rbac.go).
type namespaceGrants struct{}

func (namespaceGrants) after(p *Proxy, x *exchange, resp *http.Response) {
	if createdNamespace(x.u, resp.StatusCode) {
		resp.Body = p.afterNamespaceCreate(x.r.Context(), x.w, resp.Body)
	}
}
