package localproxy

import (
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// fanOutList lists (or deletes a collection of) a namespaced resource across
// the tenant's namespaces, one upstream request per namespace, in namespace
// order. With limit, pages are full: each namespace is asked for what is still
// missing, and the next page resumes with a composite continue token.
func (p *Proxy) fanOutList(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	ctx := r.Context()
	nss, nsRV, err := p.tenantNamespaces(ctx)
	if err != nil {
		writeStatus(w, unavailable(p.base.Host, err))
		return
	}
	limit, _ := strconv.ParseInt(u.Query.Get("limit"), 10, 64)
	if u.Info.Verb != "list" {
		limit = 0
	}
	first, cont := 0, ""
	if u.Start != nil {
		first = sort.SearchStrings(nss, u.Start.Namespace)
		if first < len(nss) && nss[first] == u.Start.Namespace {
			cont = u.Start.Continue
		}
	}
	clientRV := u.Query.Get("resourceVersion") != ""
	var (
		doc   map[string]any
		items []any
		key   = "items"
		rv    = ""
		next  = ""
	)
	remaining := limit
legs:
	for i := first; i < len(nss); i++ {
		for {
			path, q := u.ForNamespace(nss[i], cont)
			if limit > 0 {
				q.Set("limit", strconv.FormatInt(remaining, 10))
			}
			if u.Info.Verb == "list" && !clientRV && cont == "" && rv != "" {
				// One consistent snapshot across namespaces.
				q.Set("resourceVersion", rv)
				q.Set("resourceVersionMatch", "Exact")
			}
			leg, code, body, err := p.fetchJSON(w, r, u, path, q)
			if err != nil {
				writeStatus(w, unavailable(p.base.Host, err))
				return
			}
			if code != http.StatusOK {
				p.writeTranslated(w, u, code, body)
				return
			}
			if err := p.tr.TranslateDocument(u.Rule, leg); err != nil {
				writeStatus(w, translate.ToStatus(err))
				return
			}
			if doc == nil {
				doc = leg
				if leg["kind"] == "Table" {
					key = "rows"
				}
			}
			got, _ := leg[key].([]any)
			items = append(items, got...)
			meta, _ := leg["metadata"].(map[string]any)
			if rv == "" {
				rv, _ = meta["resourceVersion"].(string)
			}
			cont, _ = meta["continue"].(string)
			remaining -= int64(len(got))
			if cont == "" {
				break
			}
			if limit > 0 && remaining <= 0 {
				next = translate.EncodeContinue(translate.ContinueToken{Namespace: nss[i], Continue: cont})
				break legs
			}
		}
		cont = ""
		if limit > 0 && remaining <= 0 && i+1 < len(nss) {
			next = translate.EncodeContinue(translate.ContinueToken{Namespace: nss[i+1]})
			break
		}
	}
	if doc == nil {
		doc = p.emptyList(r, u)
	}
	if rv == "" {
		rv = nsRV
	}
	if items == nil {
		items = []any{}
	}
	doc[key] = items
	meta := map[string]any{"resourceVersion": rv}
	if next != "" {
		meta["continue"] = next
	}
	doc["metadata"] = meta
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = translate.EncodeDocument(w, doc)
}

// fetchJSON sends one leg of a fan-out and decodes its JSON answer.
func (p *Proxy) fetchJSON(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, path string, q url.Values) (map[string]any, int, []byte, error) {
	req, err := p.newUpstreamRequest(r.Context(), r, u, path, q)
	if err != nil {
		return nil, 0, nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, body, nil
	}
	doc, err := translate.DecodeDocument(body) // numbers stay exact
	if err != nil {
		return nil, http.StatusBadGateway, body, nil
	}
	return doc, resp.StatusCode, body, nil
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
