// Package localproxy is the translating proxy behind `kubectl zoo serve`:
// an http.Handler that authenticates local clients with a bearer token,
// translates every request with pkg/translate, sends it to the upstream
// cluster impersonating the tenant identity, and translates the answer back.
//
// Plain requests go upstream over a shared (HTTP/2 where the upstream offers
// it) client; fanned-out lists and watches over all of the tenant's
// namespaces are joined here; exec, attach and port-forward (WebSocket or
// SPDY) are upgraded to the upstream over a separate HTTP/1.1 transport with
// apimachinery's UpgradeAwareHandler, as `kubectl proxy` does.
//
// Usable in-process (tests, benchmarks):
//
//	p, _ := localproxy.New(localproxy.Config{Upstream: cfg, Tenant: "acme", Token: tok,
//		NewPolicyClient: tenantctl.PolicyClientFor})
//	srv := localproxy.NewServer(p, "127.0.0.1:0")
//	_ = srv.Start()
//	defer srv.Shutdown(ctx)
package localproxy
