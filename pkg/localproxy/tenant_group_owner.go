package localproxy

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// crdIsTenants reports whether the CustomResourceDefinition crd (upstream
// name) is labeled as the proxy's tenant's, read with the proxy's own
// identity and cached like the access reviews. A group is recognised as the
// tenant's by its prefix, but a prefix alone is not ownership: the platform
// may serve a group of its own that starts with a tenant's name
// (cert-manager.io for a tenant "cert"). Only the tenant's own CRDs carry
// its label (zoo-tenant admission refuses it on anything else), so only
// their objects are ever served with the proxy's own identity.
func (p *Proxy) crdIsTenants(ctx context.Context, crd string) (bool, error) {
	key := "owner " + crd
	a := &p.groupAccess
	a.mu.Lock()
	ans, ok := a.answers[key]
	a.mu.Unlock()
	if ok && time.Since(ans.at) < tenantGroupTTL {
		return ans.allowed, nil
	}
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	err := p.ownJSON(ctx, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+url.PathEscape(crd), &obj)
	if se, notFound := err.(*statusError); err != nil && (!notFound || se.code != http.StatusNotFound) {
		return false, err
	}
	owned := err == nil && obj.Metadata.Labels[translate.TenantLabel] == p.tenant.Name()
	a.mu.Lock()
	if a.answers == nil || len(a.answers) > 1024 {
		a.answers = map[string]accessAnswer{}
	}
	a.answers[key] = accessAnswer{allowed: owned, at: time.Now()}
	a.mu.Unlock()
	return owned, nil
}
