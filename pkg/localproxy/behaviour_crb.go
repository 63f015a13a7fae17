package localproxy

import (
	"net/http"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// clusterRoleBindings serves the writes of a tenant's ClusterRoleBindings,
// which are stored as an annotation and materialized as RoleBindings
// (crb.go), and restores their subjects from that annotation in the
// upstream's answers.
type clusterRoleBindings struct{}

func (clusterRoleBindings) before(p *Proxy, x *exchange) bool {
	if !isClusterRoleBindings(x.u) {
		return false
	}
	switch x.u.Info.Verb {
	case "create", "update":
		p.writeClusterRoleBinding(x.w, x.r, x.u)
	case "patch":
		p.patchClusterRoleBinding(x.w, x.r, x.u, x.body) // in the tenant's view
	case "delete", "deletecollection":
		p.deleteClusterRoleBindings(x.w, x.r, x.u)
	default:
		return false
	}
	return true
}

func (clusterRoleBindings) after(p *Proxy, x *exchange, resp *http.Response) {
	if isClusterRoleBindings(x.u) {
		resp.Body = crbstore.Restore(p.tenant, resp.Body)
	}
}

// materializedRoleBindings hides the RoleBindings that materialize a
// tenant's ClusterRoleBindings from its RoleBinding requests (crb.go).
type materializedRoleBindings struct{}

func (materializedRoleBindings) before(_ *Proxy, x *exchange) bool {
	if x.u.Info.Subresource != "" {
		return false
	}
	if err := hideMaterialized(x.u); err != nil {
		writeStatus(x.w, translate.ToStatus(err))
		return true
	}
	return false
}
