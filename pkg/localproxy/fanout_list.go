package localproxy

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// fanOutList lists (or deletes a collection of) a namespaced resource across
// the tenant's namespaces, one upstream request per namespace, in namespace
// order.
func (p *Proxy) fanOutList(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	nss, nsRV, err := p.tenantNamespaces(r.Context())
	if err != nil {
		writeStatus(w, p.namespacesStatus(err))
		return
	}
	legs := joinedList{
		n:  len(nss),
		at: func(i int, cont string) (string, url.Values) { return u.ForNamespace(nss[i], cont) },
		token: func(i int, cont, rv string) string {
			return translate.EncodeContinue(translate.ContinueToken{Namespace: nss[i], Continue: cont, ResourceVersion: rv})
		},
		emptyRV: nsRV,
		gone:    func(ctx context.Context, i int) bool { return p.namespaceGoing(ctx, nss[i]) },
		skip:    func(i int) string { return nss[i] },
	}
	if u.Start != nil {
		legs.first = sort.SearchStrings(nss, u.Start.Namespace)
		if legs.first < len(nss) && nss[legs.first] == u.Start.Namespace {
			legs.cont = u.Start.Continue
		}
		legs.rv = u.Start.ResourceVersion
	}
	p.joinList(w, r, u, legs)
}

// sharedList lists a shared kind as its two legs (the cluster's objects, then
// the tenant's; translate.PlanSharedList), joined into one list.
func (p *Proxy) sharedList(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	legs := joinedList{
		n:  len(u.Legs),
		at: u.ForLeg,
		token: func(i int, cont, rv string) string {
			return translate.EncodeContinue(translate.ContinueToken{Part: u.Legs[i].Part, Continue: cont, ResourceVersion: rv})
		},
	}
	if u.Start != nil {
		legs.first = len(u.Legs)
		for i, leg := range u.Legs {
			if leg.Part == u.Start.Part {
				legs.first, legs.cont = i, u.Start.Continue
			}
		}
		legs.rv = u.Start.ResourceVersion
	}
	p.joinList(w, r, u, legs)
}

// joinedList is a list the proxy joins from n upstream lists (legs), in
// order.
type joinedList struct {
	n int
	// at returns the upstream path and query of leg i resuming at the
	// upstream continue token cont.
	at func(i int, cont string) (string, url.Values)
	// token renders the tenant's continue token of leg i at cont, for a list
	// whose first page was read at rv.
	token func(i int, cont, rv string) string
	// first, cont and rv are where the page starts (a tenant's continue
	// token): the leg, the upstream continue in it and the resourceVersion
	// of the list's first page.
	first int
	cont  string
	rv    string
	// emptyRV is the resourceVersion of a list of no leg at all.
	emptyRV string
	// gone, when set, reports whether leg i's namespace is being deleted
	// or gone: the namespace controller deletes its RoleBindings first,
	// so a refusal there is an empty leg, not a refusal of the whole list.
	gone func(ctx context.Context, i int) bool
	// skip, when set, leaves a list's leg the identity may not read out of
	// it and returns the namespace to name (fanout_forbidden.go).
	skip func(i int) string
}

// joinList answers a list joined from legs. The first leg read honours the
// tenant's resourceVersion; every other leg is read at the resourceVersion of
// that answer (Exact), so the list is one snapshot the tenant can watch from,
// across pages too. With limit, pages are full: each leg is asked for what is
// still missing, and the next page resumes with a composite continue token.
//
// The legs are read legWindow at a time (fanout_window.go) but joined in
// order, so the answer is the one of reading them one after another: the
// first leg waits alone when the resourceVersion is still to come from it,
// the first failing leg in order decides the answer, and the legs still in
// flight when the answer is decided (or the client goes away) are cancelled.
// A deletecollection's legs are read ahead too: each is the tenant's own
// deletecollection in one of its namespaces, authorized upstream on its own,
// and the API server's deletecollection is no transaction either (it deletes
// with several workers and stops at the first error), so a failed one has
// always left some objects deleted; reading ahead only means that up to
// legWindow-1 namespaces after a failing one may be cleared too, which the
// client asked for, while the answer is still the first failure in order.
func (p *Proxy) joinList(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, legs joinedList) {
	limit, _ := strconv.ParseInt(u.Query.Get("limit"), 10, 64)
	list := u.Info.Verb == "list"
	if !list {
		limit = 0
	}
	var (
		// head is the first page read's fields (but its items and
		// metadata), key where the items are and pages the items of
		// every page read, translated, in order.
		head  map[string]any
		key   = "items"
		pages [][]byte
		rv    = legs.rv
		cont  = legs.cont
		next  = ""
		// skipped are the namespaces left out, refused the first refusal
		// and read whether any leg was read. A namespace being deleted is
		// an empty leg, neither read nor refused, as in a watch
		// (openLegs): an identity refused in every other namespace is
		// refused.
		skipped []string
		refused *legAnswer
		read    bool
	)
	// request is leg i's upstream request resuming at the upstream continue
	// token c and asking for n items.
	request := func(i int, c string, n int64) (string, url.Values) {
		path, q := legs.at(i, c)
		if limit > 0 {
			q.Set("limit", strconv.FormatInt(n, 10))
		}
		if list && c == "" && rv != "" {
			// One consistent snapshot across legs and pages.
			q.Set("resourceVersion", rv)
			q.Set("resourceVersionMatch", "Exact")
		}
		return path, q
	}
	ahead := newLegReader(r.Context(), joinWindow, legs.first, legs.n,
		func(i int, n int64) (string, url.Values) {
			if i == legs.first {
				return request(i, legs.cont, n)
			}
			return request(i, "", n)
		},
		func(ctx context.Context, path string, q url.Values) legAnswer {
			return p.fetchLeg(ctx, r, u, path, q)
		})
	defer ahead.close()
	remaining := limit
legs:
	for i := legs.first; i < legs.n; i++ {
		// The legs after i may be read ahead once their requests do not
		// depend on an answer still to come.
		want := int64(0) // no limit: remaining counts down below 0
		if limit > 0 {
			want = remaining
		}
		ans := ahead.take(i, want, !list || rv != "")
		for {
			if ans.err != nil {
				writeStatus(w, unavailable(p.base.Host, ans.err))
				return
			}
			if ans.code == http.StatusForbidden && legs.gone != nil && legs.gone(r.Context(), i) {
				break // an empty leg
			}
			if ans.code == http.StatusForbidden && legs.skip != nil && list {
				if refused == nil {
					refused = &ans
				}
				skipped = append(skipped, legs.skip(i))
				break
			}
			if ans.code != http.StatusOK {
				p.writeTranslated(w, u, ans.code, ans.body)
				return
			}
			if ans.failed != nil {
				writeStatus(w, translate.ToStatus(ans.failed))
				return
			}
			pg := ans.page
			if !read {
				head, key = pg.Head, pg.Key
			}
			read = true
			got := int64(0)
			if pg.Key == key {
				pages, got = append(pages, pg.Items), pg.Kept
			}
			if rv == "" {
				rv = pg.ResourceVersion
			}
			cont = pg.Continue
			remaining -= got
			if cont == "" {
				break
			}
			if limit > 0 && remaining <= 0 {
				next = legs.token(i, cont, rv)
				break legs
			}
			path, q := request(i, cont, remaining)
			ans = p.fetchLeg(r.Context(), r, u, path, q)
		}
		cont = ""
		if limit > 0 && remaining <= 0 && i+1 < legs.n {
			next = legs.token(i+1, "", rv)
			break
		}
	}
	if refused != nil && !read && legs.first == 0 && legs.cont == "" {
		// Refused in every namespace: refused, not an empty list.
		p.writeTranslated(w, u, refused.code, refused.body)
		return
	}
	if !read {
		head = p.emptyList(r, u)
	}
	if rv == "" {
		rv = legs.emptyRV
	}
	p.warnSkipped(w, u, skipped)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = translate.WriteJoinedList(w, head, key, pages, rv, next)
}

// fetchLeg sends one leg of a fan-out and translates its JSON answer, as a
// stream (translate.TranslateListPage): the answers read ahead are held, as
// translated bytes, until the join reaches them. An answer that is not
// JSON is a 502 of that body (answered as such in its turn); one that is
// but cannot be translated fails the list in its turn.
func (p *Proxy) fetchLeg(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, path string, q url.Values) legAnswer {
	req, err := p.newUpstreamRequest(ctx, r, u, path, q)
	if err != nil {
		return legAnswer{err: err}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return legAnswer{err: err}
	}
	defer resp.Body.Close()
	buf := legBodies.Get().(*bytes.Buffer)
	defer putLegBody(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return legAnswer{err: err}
	}
	body := buf.Bytes() // the buffer is reused once the leg is over: what is kept of it is copied
	if resp.StatusCode != http.StatusOK {
		return legAnswer{code: resp.StatusCode, body: bytes.Clone(body)}
	}
	page, err := p.tr.TranslateListPage(u.Rule, body) // holds no part of body
	if err == nil {
		return legAnswer{page: page, code: resp.StatusCode, items: page.Read, more: page.Continue != ""}
	}
	doc, decErr := translate.DecodeDocument(body) // numbers stay exact
	if decErr != nil {
		return legAnswer{code: http.StatusBadGateway, body: bytes.Clone(body)}
	}
	key := "items"
	if doc["kind"] == "Table" {
		key = "rows"
	}
	got, _ := doc[key].([]any)
	meta, _ := doc["metadata"].(map[string]any)
	more, _ := meta["continue"].(string)
	return legAnswer{failed: err, code: resp.StatusCode, items: int64(len(got)), more: more != ""}
}

// legBodies recycles the buffers legs are read into: a leg's answer is
// translated from it and then only its translation is held.
var legBodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putLegBody returns a leg's read buffer to legBodies unless it grew past
// 1 MiB.
func putLegBody(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		legBodies.Put(buf)
	}
}

// writeTranslated answers with an upstream error body, translated.
func (p *Proxy) writeTranslated(w http.ResponseWriter, u *translate.UpstreamRequest, code int, body []byte) {
	doc, err := translate.DecodeDocument(body)
	if err != nil || doc["kind"] != "Status" {
		writeStatus(w, unavailable(p.base.Host, errUpstream(code, body)))
		return
	}
	if err := p.tr.TranslateDocument(u.Rule, doc); err != nil {
		writeStatus(w, translate.ToStatus(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = translate.EncodeDocument(w, doc)
}

// emptyList is the answer of a fan-out over no namespace at all.
func (p *Proxy) emptyList(r *http.Request, u *translate.UpstreamRequest) map[string]any {
	gv := u.Info.APIVersion
	if u.Info.APIGroup != "" {
		gv = u.Info.APIGroup + "/" + gv
	}
	if wantsTable(r.Header.Get("Accept")) {
		return map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": []any{}}
	}
	return map[string]any{"kind": u.Rule.Kind + "List", "apiVersion": gv}
}
