package localproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// aggregationFieldManager owns the aggregationRule the proxy adds to the
// tenant's standard roles; tenant create's own manager never removes it.
const aggregationFieldManager = "kubectl-zoo-aggregation"

// isClusterRoleWrite reports whether u writes a ClusterRole for real.
func isClusterRoleWrite(u *translate.UpstreamRequest) bool {
	return isWriteOf(u, clusterRoles) // tenant_group_role.go
}

// afterClusterRoleWrite switches aggregation on for the tenant's standard
// admin, edit and view when the ClusterRole in the upstream answer body is
// the first of the tenant's own to aggregate into them
// (platformobj.AggregatesIntoStandardRoles): tenant create writes them with
// their rules but without an aggregationRule, so that the cluster's
// aggregation controller does not work on them for tenants that never
// extend them. A failure is logged and reported to the client as a Warning
// header. Writes of such roles are rare, so it reads the standard roles
// each time rather than remember them (the tenant may change them).
func (p *Proxy) afterClusterRoleWrite(ctx context.Context, w http.ResponseWriter, body []byte) {
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	role, ok := obj.(*rbacv1.ClusterRole)
	if err != nil || !ok || !platformobj.AggregatesIntoStandardRoles(p.tenant, role.Name, role.Labels) {
		return
	}
	// As the tenant identity, whatever identity the write itself went
	// with (tenant_group.go): this is the tenant's business.
	ctx = context.WithValue(ctx, ownIdentityKey{}, nil)
	if err := p.aggregateStandardRoles(ctx); err != nil {
		klog.ErrorS(err, "switching on aggregation into the tenant's admin, edit and view", "tenant", p.tenant.Name(), "clusterrole", role.Name)
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", "this ClusterRole is not aggregated into admin, edit and view yet: "+
			"kubectl-zoo could not switch their aggregation on; ask the platform's admin to run `kubectl zoo tenant create "+
			p.tenant.Name()+"` again, which does"))
	}
}

// aggregateStandardRoles gives the tenant's standard view, edit and admin
// their aggregationRule (platformobj.StandardAggregationRule), as the tenant
// identity. It applies it (server-side) even where it is there already, so
// that aggregationFieldManager owns it too: a rule only tenant create's
// manager owned would go with that manager's next apply of a plain role. A
// role the tenant deleted stays deleted.
func (p *Proxy) aggregateStandardRoles(ctx context.Context) error {
	for _, name := range platformobj.AggregatedStandardRoles {
		path := "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + url.PathEscape(p.tenant.Prefix()+name)
		err := p.doJSON(ctx, http.MethodGet, path, nil, nil)
		if se, ok := err.(*statusError); ok && se.code == http.StatusNotFound {
			continue
		}
		if err != nil {
			return fmt.Errorf("read ClusterRole %s: %w", name, err)
		}
		apply, err := json.Marshal(map[string]any{
			"apiVersion": rbacv1.SchemeGroupVersion.String(), "kind": "ClusterRole",
			"metadata":        map[string]any{"name": p.tenant.Prefix() + name},
			"aggregationRule": platformobj.StandardAggregationRule(p.tenant, name),
		})
		if err != nil {
			return err
		}
		if err := p.tenantApply(ctx, path, apply); err != nil {
			return fmt.Errorf("aggregate ClusterRole %s: %w", name, err)
		}
	}
	return nil
}

// tenantApply server-side applies obj at path as the tenant identity, as
// aggregationFieldManager.
func (p *Proxy) tenantApply(ctx context.Context, path string, obj []byte) error {
	q := url.Values{"fieldManager": {aggregationFieldManager}, "force": {"true"}}
	return p.tenantSend(ctx, http.MethodPatch, path, q, "application/apply-patch+yaml", obj, nil)
}
