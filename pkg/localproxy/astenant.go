package localproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// patchRetries bounds how often a patch is applied again after the object
// changed between its read and its write.
const patchRetries = 5

// upstreamAnswer is a whole upstream answer.
type upstreamAnswer struct {
	code   int
	header http.Header
	body   []byte
}

// sendAsTenant sends one request upstream as the tenant identity, with the
// headers of u (Accept) and a JSON body, and reads the whole answer.
func (p *Proxy) sendAsTenant(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, method, upPath string,
	query url.Values, body []byte) (*upstreamAnswer, error) {
	up := *u
	up.Method, up.Body, up.Header = method, body, u.Header.Clone()
	if body != nil {
		up.Header.Set("Content-Type", translate.MediaJSON)
	} else {
		up.Header.Del("Content-Type")
	}
	return p.roundTripAsTenant(ctx, r, &up, upPath, query)
}

// roundTripAsTenant sends up to upPath with query as the tenant identity and
// reads the whole answer (at most maxBodyBytes).
func (p *Proxy) roundTripAsTenant(ctx context.Context, r *http.Request, up *translate.UpstreamRequest, upPath string,
	query url.Values) (*upstreamAnswer, error) {
	req, err := p.newUpstreamRequest(ctx, r, up, upPath, query)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the upstream answer: %w", err)
	}
	return &upstreamAnswer{code: resp.StatusCode, header: resp.Header, body: data}, nil
}

// answer writes a whole upstream answer to the tenant: translated (with
// the subjects of ClusterRoleBindings restored), with extra Warning headers.
func (p *Proxy) answer(w http.ResponseWriter, u *translate.UpstreamRequest, a *upstreamAnswer, warnings []string) {
	copyHeaders(w.Header(), a.header)
	addWarnings(w.Header(), slices.Concat(u.Warnings, warnings))
	if len(a.body) == 0 {
		w.WriteHeader(a.code)
		return
	}
	if ct := a.header.Get("Content-Type"); a.code >= http.StatusBadRequest && !jsonAnswer(ct) {
		w.Header().Del("Content-Type")
		writeStatus(w, failureStatus(a.code, u.Info.Verb, a.header)) // as forward
		return
	}
	if ct := a.header.Get("Content-Type"); !translatable(ct) {
		// Never pass what the translator cannot read (as forward).
		w.Header().Del("Content-Type")
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadGateway, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("the upstream answered in %q, which kubectl-zoo cannot translate", ct)})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	lw := &lazyWriter{w: w, code: a.code}
	var in io.ReadCloser = io.NopCloser(bytes.NewReader(a.body))
	if isClusterRoleBindings(u) {
		in = crbstore.Restore(p.tenant, in)
	}
	if err := p.tr.TranslateResponse(u, in, lw); err != nil && !lw.wrote {
		writeStatus(w, translate.ToStatus(err))
	}
}

// tenantJSON sends one JSON request as the tenant identity and decodes the
// answer into out (if not nil); a non-2xx answer is a *statusError.
func (p *Proxy) tenantJSON(ctx context.Context, method, path string, query url.Values, body []byte, out any) error {
	return p.tenantSend(ctx, method, path, query, translate.MediaJSON, body, out)
}

// tenantSend is tenantJSON with a body of contentType (a JSON patch type).
func (p *Proxy) tenantSend(ctx context.Context, method, path string, query url.Values, contentType string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.upstreamURL(path, query).String(), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", translate.MediaJSON)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{code: resp.StatusCode, body: data}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// newGrants returns the crbstore.Grants of the proxy's tenant: RoleBindings
// written with the impersonating client, stored bindings read with the
// caller's own. Neither client is rate limited on the client side (a grant
// writes one RoleBinding per tenant namespace); the API server's priority
// and fairness judges them. They speak JSON, as the rest of the proxy's own
// requests do.
func (p *Proxy) newGrants(impCfg, ownCfg *rest.Config) (*crbstore.Grants, error) {
	unlimited := func(cfg *rest.Config) *rest.Config {
		cfg = rest.CopyConfig(cfg)
		cfg.QPS, cfg.RateLimiter = -1, nil
		cfg.ContentType, cfg.AcceptContentTypes = translate.MediaJSON, translate.MediaJSON
		return cfg
	}
	asTenant, err := rbacv1client.NewForConfigAndClient(unlimited(impCfg), p.client)
	if err != nil {
		return nil, fmt.Errorf("upstream RBAC client: %w", err)
	}
	own, err := rbacv1client.NewForConfigAndClient(unlimited(ownCfg), p.own)
	if err != nil {
		return nil, fmt.Errorf("upstream RBAC client: %w", err)
	}
	return &crbstore.Grants{Tenant: p.tenant, AsTenant: asTenant, Own: own, Namespaces: func(ctx context.Context) ([]string, error) {
		names, _, err := p.tenantNamespaces(ctx)
		return names, err
	}}, nil
}
