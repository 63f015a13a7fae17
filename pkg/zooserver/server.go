package zooserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// Config configures a Server.
type Config struct {
	// Upstream is the REST config of the shared cluster with the server's
	// own credential (in cluster: its ServiceAccount). It must be allowed
	// to impersonate tenant identities, review tokens and access, and read
	// what the proxy reads with its own identity (`kubectl zoo install
	// --server` grants exactly that).
	Upstream *rest.Config
	// Listen is the address to serve HTTPS on (":8443").
	Listen string
	// CertFile and KeyFile are the serving certificate and key (PEM).
	CertFile, KeyFile string
	// ClientCAFile, when set, is a CA bundle (PEM) of client certificates
	// accepted besides the cluster's client CA.
	ClientCAFile string
	// Audit receives one JSON line per mutating request; nil writes none.
	Audit io.Writer
	// MaxProxies bounds the identities of one tenant whose proxy is held
	// (DefaultMaxProxies when 0).
	MaxProxies int
	// AdvertiseAddress, when set, is where tenant pods reach the server
	// (HOST:PORT of its Service): pods and pod templates written through
	// the server get the tenant view's in-cluster API access pointing
	// there (localproxy.APIAccess). AdvertiseCAFile is the CA bundle (PEM)
	// that verifies the server at that address, followed live.
	AdvertiseAddress, AdvertiseCAFile string
}

// ownQPS is the client-side rate of the server's own upstream calls
// (token and access reviews, the CA and tenant informers).
const ownQPS = 200

// Server is the multi-tenant server. Create it with New, then Start.
type Server struct {
	cfg     Config
	client  kubernetes.Interface
	authn   *authn
	tenants *tenantIndex
	// namespaces says whether a ServiceAccount's namespace is its tenant's.
	namespaces *namespaceOwners
	// policy keeps the tenants' policy objects (policy_loop.go) with
	// policyClient.
	policy       *policyLoop
	policyClient *policyctl.Client
	proxies      *proxies
	metrics      *metrics
	fair         *fairShare // fairshare.go
	audit        *auditLog
	// advertiseCA follows Config.AdvertiseCAFile (apiaccess.go).
	advertiseCA *dynamiccertificates.DynamicFileCAContent
	// tenantProp reconciles tenants' namespace limits and copies (tenantprop.go).
	tenantProp *tenantPropLoop
	// sleeper sleeps idle tenants and wakes them (sleep.go).
	sleeper *idleSleeper

	ln       net.Listener
	srv      *http.Server
	stop     context.CancelFunc
	draining atomic.Bool
	done     chan error
}

// New returns the Server for cfg; nothing runs until Start.
func New(cfg Config) (*Server, error) {
	if cfg.Upstream == nil {
		return nil, errors.New("no upstream REST config")
	}
	if cfg.Listen == "" || cfg.CertFile == "" || cfg.KeyFile == "" {
		return nil, errors.New("a listen address, a serving certificate and its key are required")
	}
	// The server's own calls (TokenReviews above all: one per token and
	// tokenCacheTTL) must not queue behind client-go's default 5 QPS.
	own := rest.CopyConfig(cfg.Upstream)
	own.QPS, own.Burst = ownQPS, 2*ownQPS
	client, err := kubernetes.NewForConfig(own)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg.Upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	reviews, err := kubernetes.NewForConfig(own) // a client of its own (authn.go)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	a, err := newAuthn(client, reviews, cfg.ClientCAFile)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, client: client, authn: a, tenants: newTenantIndex(dyn), namespaces: newNamespaceOwners(client),
		done: make(chan error, 1)}
	if cfg.Audit != nil {
		s.audit = &auditLog{w: cfg.Audit}
	}
	policies, err := tenantctl.NewClient(cfg.Upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	s.policyClient = policyctl.New(policies.Client)
	s.sleeper = &idleSleeper{client: policies, records: s.tenants.informer.GetStore().List, now: time.Now, seen: map[string]time.Time{}}
	if s.policy, err = newPolicyLoop(client, s.policyClient, s.tenants.informer); err != nil {
		return nil, err
	}
	access, err := s.newAPIAccess()
	if err != nil {
		return nil, err
	}
	s.proxies = newProxies(cfg.MaxProxies, s.tenantUpstream)
	s.proxies.apiAccess = access
	s.proxies.isTenant = s.tenants.exists
	s.tenants.onRevoke(s.proxies.forget)
	s.metrics = newMetrics(s.proxies.len)
	s.tenants.onDelete(s.metrics.forgetTenant)
	s.fair = newFairShare(s.metrics.registry)
	if s.tenantProp, err = newTenantPropLoop(own); err != nil { // tenantprop.go
		return nil, err
	}
	return s, nil
}

// tenantUpstream is the upstream config of tenant's proxies: the server's
// credential, counting the tenant's failed upstream requests.
func (s *Server) tenantUpstream(tenant string) *rest.Config {
	cfg := rest.CopyConfig(s.cfg.Upstream)
	errs := s.metrics.upstreamErrors.WithLabelValues(tenant)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, errors: errs} })
	return cfg
}

// Start starts following the client CAs and the Tenant records and
// listens; it serves in the background. /readyz turns ready once the CAs are
// loaded and the records synced; until then certificates and tenants are
// refused.
func (s *Server) Start(ctx context.Context) error {
	cert, err := tls.LoadX509KeyPair(s.cfg.CertFile, s.cfg.KeyFile)
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	s.authn.start(runCtx)
	if s.advertiseCA != nil {
		go s.advertiseCA.Run(runCtx, 1)
	}
	go s.tenants.run(runCtx)
	// Every tenant's namespaces, watched once for all proxies and loops: a
	// list of a tenant's by label filters every namespace of the cluster.
	nss, err := localproxy.WatchNamespaces(runCtx, s.cfg.Upstream, "")
	if err != nil {
		stop()
		return err
	}
	if nss != nil {
		s.proxies.setNamespaces(nss)
		s.policyClient.Namespaces = nss.TenantNamespaces
		s.tenantProp.tc.Namespaces, s.tenantProp.prop.Namespaces = nss.TenantNamespaces, nss.TenantNamespaces
	}
	go s.policy.run(runCtx)
	setup, err := s.newNamespaceSetup() // nssetup.go
	if err != nil {
		stop()
		return err
	}
	go setup.Run(runCtx)
	go s.tenantProp.run(runCtx, 2)
	go s.sleeper.run(runCtx)
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		stop()
		return fmt.Errorf("listening on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	s.srv = localproxy.NewHTTPServer(s, &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		// Verified by the authenticator, against CAs that change live;
		// a caller may present a token instead.
		ClientAuth: tls.RequestClientCert,
	})
	s.srv.ConnContext = withConnCache // conncache.go
	go func() {
		err := s.srv.ServeTLS(ln, "", "")
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return nil
}

// Addr is the address the server listens on (after Start).
func (s *Server) Addr() string {
	if s.ln == nil {
		return s.cfg.Listen
	}
	return s.ln.Addr().String()
}

// Done receives the error serving ended with (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown drains the server: /readyz fails, no connection is accepted,
// every watch ends cleanly (clients re-watch, through another replica), and
// requests in flight finish until ctx ends; then what is left is closed.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	s.draining.Store(true)
	klog.InfoS("draining")
	shut := make(chan error, 1)
	go func() { shut <- s.srv.Shutdown(ctx) }()
	s.proxies.closeAll()
	err := <-shut
	if err != nil {
		_ = s.srv.Close()
	}
	s.stop()
	return err
}
