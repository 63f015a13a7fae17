package localproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

const pcPath = "/apis/scheduling.k8s.io/v1/priorityclasses"

// fakePC is one upstream PriorityClass of fakePriorityClasses.
type fakePC struct{ name, tenant, tier string }

// fakePriorityClasses is an upstream of PriorityClasses in key order that
// honours label and field selectors, limit and continue (a position and the
// first page's resourceVersion), resourceVersion with Exact, Tables and
// watches, as the API server does.
var fakePriorityClasses = []fakePC{
	{"acme-low", "acme", "gold"},
	{"acme-lower", "acme", ""},
	{"beta-high", "beta", "gold"},
	{"beta-sneaky", "acme", "gold"}, // labeled acme, named as beta's: the proxy never shows it
	{"gamma-x", "gamma", ""},
	{"standard", "", "gold"},
	{"system-node-critical", "", ""},
}

func (f fakePC) object() map[string]any {
	lbls := map[string]any{}
	if f.tenant != "" {
		lbls[translate.TenantLabel] = f.tenant
	}
	if f.tier != "" {
		lbls["tier"] = f.tier
	}
	return map[string]any{"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "value": 0,
		"metadata": map[string]any{"name": f.name, "labels": lbls, "resourceVersion": "3"}}
}

func (f fakePC) matches(t *testing.T, q map[string][]string) bool {
	set := labels.Set{}
	if f.tenant != "" {
		set[translate.TenantLabel] = f.tenant
	}
	if f.tier != "" {
		set["tier"] = f.tier
	}
	ls, err := labels.Parse(first(q["labelSelector"]))
	require.NoError(t, err)
	fs, err := fields.ParseSelector(first(q["fieldSelector"]))
	require.NoError(t, err)
	return ls.Matches(set) && fs.Matches(fields.Set{"metadata.name": f.name})
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// servePriorityClasses answers a list (or a watch: every object as ADDED) of
// fakePriorityClasses; the current resourceVersion is 100.
func servePriorityClasses(t *testing.T, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start, rv := 0, "100"
	if c := q.Get("continue"); c != "" {
		pos, crv, ok := strings.Cut(c, ":")
		require.True(t, ok, "an upstream continue of the fake's own: %q", c)
		start, _ = strconv.Atoi(pos)
		rv = crv
	} else if q.Get("resourceVersionMatch") == "Exact" {
		rv = q.Get("resourceVersion")
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	w.Header().Set("Content-Type", "application/json")
	if q.Get("watch") == "true" {
		for _, pc := range fakePriorityClasses {
			if pc.matches(t, q) {
				require.NoError(t, json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": pc.object()}))
			}
		}
		return
	}
	table := strings.Contains(r.Header.Get("Accept"), "as=Table")
	var items []any
	next := ""
	for i := start; i < len(fakePriorityClasses); i++ {
		pc := fakePriorityClasses[i]
		if !pc.matches(t, q) {
			continue
		}
		if limit > 0 && len(items) == limit {
			next = fmt.Sprintf("%d:%s", i, rv)
			break
		}
		if table {
			items = append(items, map[string]any{"cells": []any{pc.name, 0},
				"object": map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": pc.object()["metadata"]}})
		} else {
			items = append(items, pc.object())
		}
	}
	meta := map[string]any{"resourceVersion": rv}
	if next != "" {
		meta["continue"] = next
	}
	doc := map[string]any{"kind": "PriorityClassList", "apiVersion": "scheduling.k8s.io/v1", "metadata": meta, "items": items}
	if table {
		doc = map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta, "rows": items,
			"columnDefinitions": []any{map[string]any{"name": "Name", "type": "string", "format": "name"}, map[string]any{"name": "Value", "type": "integer"}}}
	}
	require.NoError(t, json.NewEncoder(w).Encode(doc))
}

// listPages lists PriorityClasses through p page by page and returns the
// names in order, the resourceVersion of every page and the upstream queries.
func listPages(t *testing.T, p http.Handler, query string, accept string) (names []string, rvs []string) {
	t.Helper()
	cont := ""
	for page := 0; ; page++ {
		require.Less(t, page, 20, "the pages never end")
		q := query
		if cont != "" {
			q += "&continue=" + cont
		}
		rec := request(p, http.MethodGet, pcPath+"?"+strings.TrimPrefix(q, "&"), map[string]string{"Accept": accept}, "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var doc struct {
			Kind     string
			Metadata struct{ ResourceVersion, Continue string }
			Items    []struct{ Metadata struct{ Name string } }
			Rows     []struct {
				Object struct{ Metadata struct{ Name string } }
			}
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
		for _, it := range doc.Items {
			names = append(names, it.Metadata.Name)
		}
		for _, row := range doc.Rows {
			names = append(names, row.Object.Metadata.Name)
		}
		rvs = append(rvs, doc.Metadata.ResourceVersion)
		if cont = doc.Metadata.Continue; cont == "" {
			return names, rvs
		}
	}
}

// TestSharedListJoinsTwoLegs: a list of a shared kind through the proxy is the
// cluster's objects and then the tenant's, asked for with two selectors that
// never name another tenant; pages of any size are full, resume across the
// legs with the proxy's continue token and show one resourceVersion; Tables
// join their rows.
func TestSharedListJoinsTwoLegs(t *testing.T) {
	all := []string{"standard", "system-node-critical", "low", "lower"}
	for _, tc := range []struct {
		name, query, accept string
		want                []string
	}{
		{"all at once", "", "application/json", all},
		{"one by one", "limit=1", "application/json", all},
		{"two by two", "limit=2", "application/json", all},
		{"three, across the legs", "limit=3", "application/json", all},
		{"more than there are", "limit=50", "application/json", all},
		{"a Table, one by one", "limit=1", "application/json;as=Table;v=v1;g=meta.k8s.io", all},
		{"a label selector", "labelSelector=tier%3Dgold", "application/json", []string{"standard", "low"}},
		{"a name of the cluster's", "fieldSelector=metadata.name%3Dstandard", "application/json", []string{"standard"}},
		{"a name of the tenant's", "fieldSelector=metadata.name%3Dlow", "application/json", []string{"low"}},
		{"not a name", "fieldSelector=metadata.name!%3Dlow&limit=1", "application/json", []string{"standard", "system-node-critical", "lower"}},
		{"another tenant's name", "fieldSelector=metadata.name%3Dbeta-high", "application/json", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, up := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) { servePriorityClasses(t, w, r) })
			names, rvs := listPages(t, p, tc.query, tc.accept)
			assert.Equal(t, tc.want, names)
			for _, rv := range rvs {
				assert.Equal(t, "100", rv, "every page shows the first page's snapshot")
			}
			up.mu.Lock()
			defer up.mu.Unlock()
			for i, r := range up.requests {
				q := r.URL.Query()
				ls := q.Get("labelSelector")
				assert.True(t, strings.HasSuffix(ls, "!"+translate.TenantLabel) || strings.HasSuffix(ls, translate.TenantLabel+"=acme"), ls)
				assert.NotContains(t, ls, "beta")
				if i > 0 && q.Get("continue") == "" {
					assert.Equal(t, "100", q.Get("resourceVersion"), "a later leg is read at the first one's resourceVersion")
					assert.Equal(t, "Exact", q.Get("resourceVersionMatch"))
				}
			}
		})
	}
}

// TestSharedListAdversarial: no selector or continue token of the tenant's
// reaches another tenant's PriorityClass: selectors naming the tenant label
// are refused, forged tokens are refused or stay inside their leg's
// selector, and an object labeled for the tenant but named for another is
// dropped.
func TestSharedListAdversarial(t *testing.T) {
	p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) { servePriorityClasses(t, w, r) })
	for _, tc := range []struct {
		name, query string
		code        int
	}{
		{"another tenant's label", "labelSelector=" + translate.TenantLabel + "%3Dbeta", http.StatusForbidden},
		{"not the tenant label", "labelSelector=!" + translate.TenantLabel, http.StatusForbidden},
		{"the tenant label in a set", "labelSelector=" + translate.TenantLabel + "+in+(acme,beta)", http.StatusForbidden},
		{"the tenant label not in a set", "labelSelector=" + translate.TenantLabel + "+notin+(acme)", http.StatusForbidden},
		{"the tenant label exists", "labelSelector=" + translate.TenantLabel, http.StatusForbidden},
		{"a part that does not exist", "continue=" + translate.EncodeContinue(translate.ContinueToken{Part: "beta"}), http.StatusBadRequest},
		{"a namespace token", "continue=" + translate.EncodeContinue(translate.ContinueToken{Namespace: "beta-default"}), http.StatusBadRequest},
		{"an upstream token", "continue=3:100", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := request(p, http.MethodGet, pcPath+"?"+tc.query, nil, "")
			assert.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.NotContains(t, rec.Body.String(), "beta-high")
		})
	}
	for _, part := range []string{translate.SharedPartPlatform, translate.SharedPartOwn} {
		t.Run("a forged position in the "+part+" leg", func(t *testing.T) {
			tok := translate.EncodeContinue(translate.ContinueToken{Part: part, Continue: "0:100"})
			names, _ := listPages(t, p, "continue="+tok, "application/json")
			assert.NotContains(t, names, "beta-high")
			assert.NotContains(t, names, "high")
			assert.NotContains(t, names, "sneaky")
			assert.NotContains(t, names, "gamma-x")
		})
	}
}

// TestSharedWatch: a watch of a shared kind is one upstream watch with the
// tenant's selectors only; the proxy drops the events of other tenants'
// objects.
func TestSharedWatch(t *testing.T) {
	p, up := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) { servePriorityClasses(t, w, r) })
	rec := request(p, http.MethodGet, pcPath+"?watch=true&labelSelector=tier%3Dgold&resourceVersion=100", nil, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var names []string
	dec := json.NewDecoder(rec.Body)
	for dec.More() {
		var ev struct {
			Type   string
			Object struct{ Metadata struct{ Name string } }
		}
		require.NoError(t, dec.Decode(&ev))
		names = append(names, ev.Object.Metadata.Name)
	}
	assert.Equal(t, []string{"low", "standard"}, names)
	require.Len(t, up.requests, 1)
	assert.Equal(t, "tier=gold", up.requests[0].URL.Query().Get("labelSelector"))
}
