package localproxy

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/klog/v2"
)

// policyObjects makes the objects of the tenant's policy (tenantctl
// ReconcilePolicyObjects: the namespace's share of the tenant-wide quota, its
// LimitRange and NetworkPolicy) after the tenant created the upstream
// namespace ns, before the create is answered. It writes with the proxy's
// own upstream identity (the `serve` user's, the server's ServiceAccount):
// the tenant may not write objects labeled as propagated. A failure is
// logged and reported as a Warning header; the namespace then admits no
// create at all (zoo-tenant-policy-objects) until a reconcile (the server's
// loop, `policy set`) makes them.
//
// With the tenant user's own credential (Config.Direct) the proxy has no
// identity of its own that may write them (the tenant may not, and such a
// credential creates no namespace anyway, direct.go): the namespace is then
// the server's loop's to complete, as one made directly upstream.
func (p *Proxy) policyObjects(ctx context.Context, w http.ResponseWriter, ns string) {
	if p.cfg.Direct {
		return
	}
	err := p.reconcilePolicyObjects(ctx, ns)
	if err == nil {
		return
	}
	klog.ErrorS(err, "making the policy objects of a new namespace", "tenant", p.tenant.Name(), "namespace", ns)
	local, _ := p.tenant.TenantNamespace(ns)
	w.Header().Add("Warning", fmt.Sprintf("299 - %q", "kubectl-zoo could not make the policy objects (quota, limits, network policy) of namespace "+local+
		"; it admits no create until they exist"))
}

// reconcilePolicyObjects makes the policy objects of the new upstream
// namespace ns (policyctl.Client.ReconcileNamespacePolicyObjects: the new
// namespace's only, unless the tenant has a quota to split).
func (p *Proxy) reconcilePolicyObjects(ctx context.Context, ns string) error {
	pc, err := p.policyClients()
	if err != nil {
		return err
	}
	return pc.tc.ReconcileNamespacePolicyObjects(ctx, p.tenant.Name(), ns)
}
