package localproxy

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantprop"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// tenantLocks serialize, within one process, the policy work of one
// tenant: the count of its namespaces and the create it allows (maxns.go),
// and its propagation (tenantprop.go). A server holds one proxy per
// identity, so the lock is per process, not per Proxy. One lock per tenant
// (never shared with another tenant, whose slow reconcile would then delay
// this one), held in the map only while someone holds or waits for it.
var tenantLocks = struct {
	sync.Mutex
	held map[string]*tenantLock
}{held: map[string]*tenantLock{}}

type tenantLock struct {
	sync.Mutex
	refs int // holders and waiters, changed under tenantLocks
}

// LockTenant takes the process-wide lock of tenant's policy work and
// returns its unlock. The server's reconcile loop takes it too.
func LockTenant(tenant string) (unlock func()) {
	tenantLocks.Lock()
	l := tenantLocks.held[tenant]
	if l == nil {
		l = &tenantLock{}
		tenantLocks.held[tenant] = l
	}
	l.refs++
	tenantLocks.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		tenantLocks.Lock()
		if l.refs--; l.refs == 0 {
			delete(tenantLocks.held, tenant)
		}
		tenantLocks.Unlock()
	}
}

// policyClients are the clients of the policy hooks, made on first use
// with the proxy's own credentials: the tenant library's (Config's
// NewPolicyClient: the records, the namespace limit, the policy objects, the
// wake), a clientset of the proxy's own, and the propagator identity
// (tenantprop).
type policyClients struct {
	once sync.Once
	tc   tenantapi.PolicyClient
	kube kubernetes.Interface
	prop *tenantprop.Propagator
	err  error
}

func (p *Proxy) policyClients() (*policyClients, error) {
	c := &p.policies
	c.once.Do(func() {
		var namespaces tenantapi.NamespaceSource
		if p.nsIndex != nil { // the tenant's namespaces without a LIST by label
			namespaces = p.nsIndex.TenantNamespaces
		}
		if p.cfg.NewPolicyClient == nil {
			c.err = errors.New("the proxy was made without a policy client (Config.NewPolicyClient)")
			return
		}
		if c.tc, c.err = p.cfg.NewPolicyClient(p.cfg.Upstream, namespaces); c.err != nil {
			return
		}
		own := rest.CopyConfig(p.cfg.Upstream)
		own.QPS, own.Burst = 100, 200
		if c.kube, c.err = kubernetes.NewForConfig(own); c.err != nil {
			return
		}
		if c.prop, c.err = tenantprop.New(p.cfg.Upstream); c.err != nil {
			return
		}
		c.prop.Namespaces = namespaces
	})
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// withPolicies runs the tenant policy hooks around a request: before it is
// forwarded (a namespace create beyond the tenant's limit is refused here,
// and nil is returned after the refusal was written), and once the upstream
// has answered with success, before the answer is written (the copies of a
// marked object exist when the tenant learns its write succeeded). done
// must be called when the request is served.
func (p *Proxy) withPolicies(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) (out http.ResponseWriter, done func()) {
	info := u.Info
	if p.cfg.Direct || !info.IsResourceRequest || info.APIGroup != "" || info.Subresource != "" {
		// With the tenant's own credential (Direct) the proxy has no
		// platform identity to count or copy with: the upstream's
		// zoo-tenant-namespace-limit and the server's loop do it.
		return w, func() {}
	}
	switch info.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
	default:
		return w, func() {}
	}
	var after func(ctx context.Context)
	unlock := func() {}
	switch {
	case info.GroupResource() == namespacesResource:
		unlock = LockTenant(p.tenant.Name())
		var ok bool
		if after, ok = p.namespaceHooks(w, r, u); !ok { // maxns.go
			unlock()
			return nil, func() {}
		}
	case info.GroupResource() == secretsResource || info.GroupResource() == configMapsResource:
		after = p.propagationHooks(r, u) // tenantprop.go
		if after == nil {
			return w, func() {}
		}
	default:
		return w, func() {}
	}
	pw := &policyWriter{ResponseWriter: w, after: func(code int) {
		if code >= 200 && code < 300 && after != nil {
			after(r.Context())
		}
	}}
	return pw, unlock
}

// policyWriter calls after with the status code before the first byte of
// the answer is written.
type policyWriter struct {
	http.ResponseWriter
	after   func(code int)
	started bool
}

func (w *policyWriter) WriteHeader(code int) {
	if !w.started {
		w.started = true
		w.after(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *policyWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes a flush on.
func (w *policyWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer (http.ResponseController).
func (w *policyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
