package localproxy

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// tenantRecord reads the tenant's record with the proxy's own identity. The
// tenant's identities hold no right on Tenant records upstream (nothing per
// tenant is granted cluster-wide; see platformobj.TenantRBAC).
func (p *Proxy) tenantRecord(ctx context.Context) (*tenantapi.Tenant, error) {
	var rec tenantapi.Tenant
	path := fmt.Sprintf("/apis/%s/%s/%s/%s", tenantapi.TenantGVR.Group, tenantapi.TenantGVR.Version, tenantapi.TenantResource, url.PathEscape(p.tenant.Name()))
	if err := p.ownJSON(ctx, path, &rec); err != nil {
		return nil, fmt.Errorf("reading the record of tenant %s: %w", p.tenant, err)
	}
	return &rec, nil
}

// ownJSON GETs path with the proxy's own identity and decodes the answer
// into out; a 404 is a statusError of that code.
func (p *Proxy) ownJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.upstreamURL(path, nil).String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", translate.MediaJSON)
	resp, err := p.own.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		return &statusError{code: http.StatusNotFound}
	}
	return decodeResponse(resp, out)
}
