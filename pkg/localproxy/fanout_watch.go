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
// one upstream watch per namespace, merged event by event into one stream
// (fanout_initial.go), plus a watch of the tenant's namespaces that opens a
// leg for every new one. When any upstream stream ends (timeout, 410 Gone as
// an ERROR event, the upstream going away), the merged stream ends and the
// client re-watches. A namespace the identity may not watch is left out
// (fanout_forbidden.go).
func (p *Proxy) fanOutWatch(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	ctx, cancel := p.watchContext(r.Context())
	defer cancel()
	nss, nsRV, err := p.tenantNamespaces(ctx)
	if err != nil {
		writeStatus(w, p.namespacesStatus(err))
		return
	}
	legs, skipped, status := p.openLegs(ctx, r, u, nss)
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
	p.warnSkipped(w, u, skipped)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	out := &lockedWriter{w: w}
	merge := newWatchMerge(out, u)
	var wg sync.WaitGroup
	run := func(i int, resp *http.Response) {
		merge.expect(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			defer merge.end()
			defer resp.Body.Close()
			if err := p.tr.TranslateWatch(u.Rule, resp.Body, merge.leg(i)); err != nil && ctx.Err() == nil {
				klog.V(2).InfoS("fan-out watch leg ended", "tenant", p.tenant.Name(), "err", err)
			}
		}()
	}
	for i, l := range legs {
		if l != nil {
			run(i, l)
		}
	}
	merge.started(nsRV)
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
			// A refusal ends the stream too: the namespace's RoleBindings
			// may be still to come, and the client's next watch has them
			// or leaves the namespace out, saying so.
			resp, status, _ := p.openLeg(ctx, r, u, name, ev.Object.Metadata.ResourceVersion)
			if status != nil {
				return
			}
			run(len(seen), resp)
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
// returns them in nss's order: nil for a namespace being deleted, whose
// watch failed, and for one the identity may not watch, which skipped
// names. If any other fails, or the identity may watch none of them, it
// closes the others and returns the failure of the first failing namespace
// in that order.
func (p *Proxy) openLegs(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, nss []string) ([]*http.Response, []string, func(http.ResponseWriter)) {
	legs := make([]*http.Response, len(nss))
	failures := make([]func(http.ResponseWriter), len(nss))
	refused := make([]bool, len(nss))
	sem := make(chan struct{}, legOpeners)
	var wg sync.WaitGroup
	for i, ns := range nss {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			legs[i], failures[i], refused[i] = p.openLeg(ctx, r, u, ns, "")
			if failures[i] != nil && p.namespaceGoing(ctx, ns) {
				failures[i], refused[i] = nil, false // being deleted (its RoleBindings go first): no leg
			}
		}()
	}
	wg.Wait()
	closeAll := func() {
		for _, l := range legs {
			if l != nil {
				l.Body.Close()
			}
		}
	}
	var skipped []string
	refusal, opened := -1, false
	for i, failed := range failures {
		opened = opened || legs[i] != nil
		if failed == nil {
			continue
		}
		if !refused[i] {
			closeAll()
			return nil, nil, failed
		}
		skipped = append(skipped, nss[i])
		if refusal < 0 {
			refusal = i
		}
	}
	if refusal >= 0 && !opened {
		return nil, nil, failures[refusal] // refused in every namespace
	}
	return legs, skipped, nil
}

// openLeg opens the watch of one namespace. On failure it returns a function
// that writes the (translated) error instead, and whether the upstream
// refused it (403).
func (p *Proxy) openLeg(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, ns, rv string) (*http.Response, func(http.ResponseWriter), bool) {
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
				return resp, nil, false
			}
			defer resp.Body.Close()
			var body []byte
			body, _ = readLimited(resp.Body)
			code := resp.StatusCode
			return nil, func(w http.ResponseWriter) { p.writeTranslated(w, u, code, body) }, code == http.StatusForbidden
		}
	}
	return nil, func(w http.ResponseWriter) { writeStatus(w, unavailable(p.base.Host, err)) }, false
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
