package localproxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	apiproxy "k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Proxy is the translating proxy of one tenant identity. It is an
// http.Handler and safe for concurrent use.
type Proxy struct {
	cfg    Config
	tenant translate.Tenant
	tr     *translate.Translator

	base      *url.URL          // upstream server URL (scheme, host, path prefix)
	client    *http.Client      // impersonating the tenant identity, or it (Config.Direct); but see tenant_group.go
	rt        http.RoundTripper // the same, for the upgrade handler's plain path
	upgradeRT apiproxy.UpgradeRequestRoundTripper
	own       *http.Client     // the caller's own identity (namespace lists, discovery); the tenant's when Direct
	grants    *crbstore.Grants // the RoleBindings of tenant ClusterRoleBindings (crb.go)
	scopes    *scopeCache
	// tenantRecords caches whether tenant records exist (other_tenants.go).
	tenantRecords *sharedCache
	shared        *sharedLookup // references to shared kinds (shared.go)
	// groupAccess caches the access reviews of tenant CRD groups'
	// cluster-scoped objects (tenant_group.go).
	groupAccess tenantGroupAccess
	// fair is the fair share ServeHTTP enforces (fairshare.go); nil
	// without Config.FairShare.
	fair *fairShare
	// nsIndex is Config.Namespaces (namespace_index.go); nil lists them
	// upstream.
	nsIndex *NamespaceIndex
	// policies are the clients of the tenant policy hooks (tenantpolicy.go).
	policies policyClients

	// closing ends with Close: every watch context is derived from it
	// with context.AfterFunc (no goroutine per watch).
	closing   context.Context
	closeFunc context.CancelFunc
}

// New returns the Proxy for cfg.
func New(cfg Config) (*Proxy, error) {
	tenant, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	base, _, err := rest.DefaultServerUrlFor(cfg.Upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream server URL: %w", err)
	}
	ownCfg := rest.CopyConfig(cfg.Upstream)
	ownCfg.Timeout = 0
	own, err := rest.HTTPClientFor(ownCfg)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	impCfg := rest.CopyConfig(ownCfg)
	if !cfg.Direct {
		impCfg.Impersonate = cfg.impersonation(tenant)
	}
	rt, err := rest.TransportFor(impCfg)
	if err != nil {
		return nil, fmt.Errorf("upstream transport: %w", err)
	}
	upgradeRT, err := upgradeTransport(impCfg)
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		cfg:       cfg,
		tenant:    tenant,
		base:      base,
		client:    &http.Client{Transport: identityTransport{tenant: rt, own: own.Transport}}, // tenant_group.go
		rt:        rt,
		upgradeRT: upgradeRT,
		own:       own,
		nsIndex:   cfg.Namespaces,
	}
	if p.grants, err = p.newGrants(impCfg, ownCfg); err != nil { // astenant.go
		return nil, err
	}
	p.closing, p.closeFunc = context.WithCancel(context.Background())
	if cfg.FairShare {
		p.fair = newFairShare(p.readLimits)
	}
	p.scopes = newScopeCache(p)
	p.shared = newSharedLookup(p)
	p.tenantRecords = newSharedCache(otherTenantsTTL, sharedCacheSize)
	p.tr = translate.New(tenant, translate.Options{Scopes: p.scopes, Shared: p.shared, Platform: newPlatformLookup(p),
		APIAccess: cfg.APIAccess != nil})
	return p, nil
}

// upgradeTransport is the HTTP/1.1 transport for exec, attach and
// port-forward, carrying the caller's credentials and the impersonation (as
// kubectl proxy builds it).
func upgradeTransport(cfg *rest.Config) (apiproxy.UpgradeRequestRoundTripper, error) {
	tc, err := cfg.TransportConfig()
	if err != nil {
		return nil, fmt.Errorf("upgrade transport: %w", err)
	}
	tlsConfig, err := transport.TLSConfigFor(tc)
	if err != nil {
		return nil, fmt.Errorf("upgrade transport TLS: %w", err)
	}
	if tlsConfig != nil {
		tlsConfig.NextProtos = []string{"http/1.1"}
	}
	rt := utilnet.SetOldTransportDefaults(&http.Transport{TLSClientConfig: tlsConfig})
	wrappers, err := transport.HTTPWrappersForConfig(tc, apiproxy.MirrorRequest)
	if err != nil {
		return nil, fmt.Errorf("upgrade transport auth: %w", err)
	}
	return apiproxy.NewUpgradeRequestRoundTripper(rt, wrappers), nil
}

// Tenant returns the proxy's tenant.
func (p *Proxy) Tenant() translate.Tenant { return p.tenant }

// Translator returns the translator the proxy uses.
func (p *Proxy) Translator() *translate.Translator { return p.tr }

// Close ends every watch the proxy is serving; other requests are not
// affected. Server.Shutdown calls it.
func (p *Proxy) Close() { p.closeFunc() }

// watchContext returns a context that ends with ctx or when the proxy closes.
func (p *Proxy) watchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.closing, cancel)
	return ctx, func() { stop(); cancel() }
}

// upstreamURL returns the upstream URL of path and query.
func (p *Proxy) upstreamURL(path string, query url.Values) *url.URL {
	u := *p.base
	u.Path = strings.TrimSuffix(p.base.Path, "/") + path
	u.RawPath = ""
	u.RawQuery = ""
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	return &u
}

// NewToken returns a random bearer token for local clients.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
