package localproxy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeLegs is an upstream with the tenant acme's namespaces acme-ns000,
// acme-ns001, ... holding counts[i] ConfigMaps each, which pages its
// namespace-scoped lists as the API server does and records them.
type fakeLegs struct {
	counts []int
	// fail answers a namespace's lists with that status code; delay holds
	// its answers that long; block holds them until the request is
	// cancelled.
	fail  map[int]int
	delay map[int]time.Duration
	block map[int]bool

	mu          sync.Mutex
	legs        []legSeen // in the order they arrived
	answered    []int     // namespaces, in the order they were answered
	inflight    int
	maxInflight int
	cancelled   int
	// firstAlone is false once a leg arrived while the first one, read
	// without a resourceVersion, was still unanswered.
	firstAlone bool
}

// legSeen is one namespace-scoped request that reached the fake upstream.
type legSeen struct {
	method string
	ns     int
	query  url.Values
}

func newFakeLegs(counts ...int) *fakeLegs {
	return &fakeLegs{counts: counts, fail: map[int]int{}, delay: map[int]time.Duration{}, block: map[int]bool{}, firstAlone: true}
}

func legNamespace(i int) string { return fmt.Sprintf("acme-ns%03d", i) }

func (f *fakeLegs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/api/v1/namespaces" && r.Header.Get("Impersonate-User") == "" {
		var items []string
		for i := range f.counts {
			items = append(items, fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":"5"}}`, legNamespace(i)))
		}
		_, _ = fmt.Fprintf(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[%s]}`, strings.Join(items, ","))
		return
	}
	var ns int
	if name, ok := strings.CutPrefix(r.URL.Path, "/api/v1/namespaces/"); ok && !strings.Contains(name, "/") {
		// The namespace itself (the proxy asks whether a refusing one is
		// being deleted): every listed one exists.
		_, _ = fmt.Fprintf(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":%q}}`, name)
		return
	}
	if _, err := fmt.Sscanf(r.URL.Path, "/api/v1/namespaces/acme-ns%03d/configmaps", &ns); err != nil || ns >= len(f.counts) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"no %s"}`, r.URL.Path)
		return
	}
	f.serveLeg(w, r, ns)
}

func (f *fakeLegs) serveLeg(w http.ResponseWriter, r *http.Request, ns int) {
	q := r.URL.Query()
	f.mu.Lock()
	unknownRV := q.Get("resourceVersionMatch") == "" && q.Get("continue") == ""
	if len(f.legs) > 0 && f.inflight > 0 && f.legs[0].query.Get("resourceVersionMatch") == "" && len(f.answered) == 0 {
		f.firstAlone = false
	}
	f.legs = append(f.legs, legSeen{method: r.Method, ns: ns, query: q})
	f.inflight++
	f.maxInflight = max(f.maxInflight, f.inflight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.answered = append(f.answered, ns)
		f.mu.Unlock()
	}()
	wait := f.delay[ns]
	if f.block[ns] {
		wait = time.Minute
	}
	if unknownRV && wait == 0 {
		wait = 20 * time.Millisecond // time for legs read too early to arrive
	}
	select {
	case <-time.After(wait):
	case <-r.Context().Done():
		f.mu.Lock()
		f.cancelled++
		f.mu.Unlock()
		return
	}
	if code := f.fail[ns]; code != 0 {
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":%d,"reason":%q,"message":"leg %s failed"}`, code, map[bool]string{true: "Forbidden", false: "InternalError"}[code == 403], legNamespace(ns))
		return
	}
	rv := "100"
	if q.Get("resourceVersionMatch") == "Exact" {
		rv = q.Get("resourceVersion")
	}
	from := 0
	if c := q.Get("continue"); c != "" {
		data, _ := base64.RawURLEncoding.DecodeString(c)
		parts := strings.SplitN(string(data), "|", 3) // namespace|offset|rv
		from, _ = strconv.Atoi(parts[1])
		rv = parts[2]
	}
	to := f.counts[ns]
	if limit, _ := strconv.Atoi(q.Get("limit")); limit > 0 && from+limit < to {
		to = from + limit
	}
	meta := map[string]any{"resourceVersion": rv}
	if to < f.counts[ns] {
		meta["continue"] = base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%s|%d|%s", legNamespace(ns), to, rv)))
	}
	table := strings.Contains(r.Header.Get("Accept"), "as=Table")
	var items []any
	for j := from; j < to; j++ {
		obj := map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%02d", j), "namespace": legNamespace(ns), "resourceVersion": strconv.Itoa(10 + j)}}
		if table {
			obj["kind"], obj["apiVersion"] = "PartialObjectMetadata", "meta.k8s.io/v1"
			items = append(items, map[string]any{"cells": []any{obj["metadata"].(map[string]any)["name"]}, "object": obj})
		} else {
			items = append(items, obj)
		}
	}
	doc := map[string]any{"kind": "ConfigMapList", "apiVersion": "v1", "metadata": meta, "items": items}
	if table {
		doc = map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta, "rows": items,
			"columnDefinitions": []any{map[string]any{"name": "Name", "type": "string", "format": "name"}}}
	}
	_ = json.NewEncoder(w).Encode(doc)
}

// seen returns the legs that reached the upstream so far.
func (f *fakeLegs) seen() []legSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]legSeen(nil), f.legs...)
}

// concurrency returns the most legs that were in flight at once and whether the
// first leg was alone while it was.
func (f *fakeLegs) concurrency() (maxInflight int, firstAlone bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxInflight, f.firstAlone
}
