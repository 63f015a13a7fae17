package localproxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// fanOutWatch watches a namespaced resource across the tenant's namespaces:
// one upstream watch per namespace, merged event by event into one stream,
// plus a watch of the tenant's namespaces that opens a leg for every new one.
// When any upstream stream ends (timeout, 410 Gone as an ERROR event, the
// upstream going away), the merged stream ends and the client re-watches.
func (p *Proxy) fanOutWatch(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	ctx, cancel := p.watchContext(r.Context())
	defer cancel()
	nss, nsRV, err := p.tenantNamespaces(ctx)
	if err != nil {
		writeStatus(w, p.namespacesStatus(err))
		return
	}
	legs, status := p.openLegs(ctx, r, u, nss)
	if status != nil {
		status(w)
		return
	}
	nsWatch, err := p.watchNamespaces(ctx, nsRV)
	if err != nil {
		for _, l := range legs {
			if l != nil {
				l.Body.Close()
			}
		}
		writeStatus(w, unavailable(p.base.Host, err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	out := &lockedWriter{w: w}
	var wg sync.WaitGroup
	run := func(resp *http.Response) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			defer resp.Body.Close()
			if err := p.tr.TranslateWatch(u.Rule, resp.Body, out); err != nil && ctx.Err() == nil {
				klog.V(2).InfoS("fan-out watch leg ended", "tenant", p.tenant.Name(), "err", err)
			}
		}()
	}
	for _, l := range legs {
		if l != nil {
			run(l)
		}
	}
	seen := map[string]bool{}
	for _, ns := range nss {
		seen[ns] = true
	}
	// New namespaces: watch them from their creation on.
	func() {
		defer nsWatch.Body.Close()
		dec := json.NewDecoder(nsWatch.Body)
		for {
			var ev struct {
				Type   string `json:"type"`
				Object nsItem `json:"object"`
			}
			if err := dec.Decode(&ev); err != nil {
				return
			}
			name := ev.Object.Metadata.Name
			if ev.Type != "ADDED" || seen[name] || !p.tenant.Owns(name) {
				continue
			}
			seen[name] = true
			resp, status := p.openLeg(ctx, r, u, name, ev.Object.Metadata.ResourceVersion)
			if status != nil {
				return
			}
			run(resp)
		}
	}()
	cancel()
	wg.Wait()
	out.close()
}

// legOpeners bounds the watches of a fan-out opened at once: opening them
// one after the other made a tenant with 200 namespaces wait 200 round
// trips before its first event.
const legOpeners = 16

// openLegs opens the watches of namespaces nss, legOpeners at a time, and
// returns them in nss's order (nil for a namespace being deleted, whose
// watch failed); if any other fails, it closes the others and returns the
// failure of the first failing namespace in that order.
func (p *Proxy) openLegs(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, nss []string) ([]*http.Response, func(http.ResponseWriter)) {
	legs := make([]*http.Response, len(nss))
	failures := make([]func(http.ResponseWriter), len(nss))
	sem := make(chan struct{}, legOpeners)
	var wg sync.WaitGroup
	for i, ns := range nss {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			legs[i], failures[i] = p.openLeg(ctx, r, u, ns, "")
			if failures[i] != nil && p.namespaceGoing(ctx, ns) {
				failures[i] = nil // being deleted (its RoleBindings go first): no leg
			}
		}()
	}
	wg.Wait()
	for i, failed := range failures {
		if failed != nil {
			for _, l := range legs {
				if l != nil {
					l.Body.Close()
				}
			}
			return nil, failures[i]
		}
	}
	return legs, nil
}

// openLeg opens the watch of one namespace. On failure it returns a function
// that writes the (translated) error instead.
func (p *Proxy) openLeg(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, ns, rv string) (*http.Response, func(http.ResponseWriter)) {
	path, q := u.ForNamespace(ns, "")
	if rv != "" {
		q.Set("resourceVersion", rv)
	}
	req, err := p.newUpstreamRequest(ctx, r, u, path, q)
	if err == nil {
		var resp *http.Response
		resp, err = p.client.Do(req)
		if err == nil {
			if resp.StatusCode == http.StatusOK {
				return resp, nil
			}
			defer resp.Body.Close()
			var body []byte
			body, _ = readLimited(resp.Body)
			code := resp.StatusCode
			return nil, func(w http.ResponseWriter) { p.writeTranslated(w, u, code, body) }
		}
	}
	return nil, func(w http.ResponseWriter) { writeStatus(w, unavailable(p.base.Host, err)) }
}

// watchNamespaces watches the tenant's namespaces from rv on.
func (p *Proxy) watchNamespaces(ctx context.Context, rv string) (*http.Response, error) {
	q := url.Values{"labelSelector": {p.tr.TenantSelector()}, "watch": {"true"}, "resourceVersion": {rv}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.upstreamURL("/api/v1/namespaces", q).String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.own.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		body, _ := readLimited(resp.Body)
		return nil, errUpstream(resp.StatusCode, body)
	}
	return resp, nil
}

// lockedWriter lets several legs write whole events to one response.
type lockedWriter struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	closed bool
}

// Write writes one event.
func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, http.ErrHandlerTimeout
	}
	return l.w.Write(b)
}

// Flush flushes the response.
func (l *lockedWriter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.w.(http.Flusher); ok && !l.closed {
		f.Flush()
	}
}

func (l *lockedWriter) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}
