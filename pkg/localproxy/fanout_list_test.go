package localproxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// withJoinWindow makes joinList read n legs at once until the test ends.
func withJoinWindow(t *testing.T, n int) {
	t.Helper()
	old := joinWindow
	joinWindow = n
	t.Cleanup(func() { joinWindow = old })
}

// page is one answer of a paged list.
type page struct {
	code int
	body string
}

// legPages lists path through a proxy in front of f, following the
// continue tokens.
func legPages(t *testing.T, f *fakeLegs, method, path string, header map[string]string) []page {
	t.Helper()
	p, _ := newTestProxy(t, f.ServeHTTP)
	var pages []page
	next := ""
	for len(pages) < 100 {
		at := path
		if next != "" {
			at += "&continue=" + url.QueryEscape(next)
		}
		rec := request(p, method, at, header, "")
		pages = append(pages, page{rec.Code, rec.Body.String()})
		// The legs cancelled when the page ended leave the upstream
		// before the next page counts its legs in flight.
		require.Eventually(t, func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.inflight == 0
		}, 10*time.Second, time.Millisecond)
		var doc struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &doc) != nil || doc.Metadata.Continue == "" {
			return pages
		}
		next = doc.Metadata.Continue
	}
	t.Fatalf("more than %d pages", len(pages))
	return nil
}

// names are the namespace/name of the items (or rows) of the pages.
func names(t *testing.T, pages []page) []string {
	t.Helper()
	var out []string
	for _, pg := range pages {
		var doc struct {
			Items []struct {
				Metadata struct{ Name, Namespace string } `json:"metadata"`
			} `json:"items"`
			Rows []struct {
				Object struct {
					Metadata struct{ Name, Namespace string } `json:"metadata"`
				} `json:"object"`
			} `json:"rows"`
		}
		require.NoError(t, json.Unmarshal([]byte(pg.body), &doc), pg.body)
		for _, it := range doc.Items {
			out = append(out, it.Metadata.Namespace+"/"+it.Metadata.Name)
		}
		for _, row := range doc.Rows {
			out = append(out, row.Object.Metadata.Namespace+"/"+row.Object.Metadata.Name)
		}
	}
	return out
}

// joinCase is an all-namespaces list of ConfigMaps over fakeLegs.
type joinCase struct {
	name   string
	counts []int
	method string
	query  string
	accept string
	fail   map[int]int
	left   []int // legs refused (403): left out of the list
}

// joinCases are the lists TestJoinListAsOneLegAtATime and
// TestJoinListAnswersAsBefore read.
var joinCases = func() []joinCase {
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	many := make([]int, 40)
	for i := range many {
		many[i] = 6
	}
	return []joinCase{
		{name: "no limit", counts: []int{3, 0, 2, 5}},
		{name: "no namespace at all"},
		{name: "limit inside a leg", counts: []int{3, 3, 3}, query: "limit=2"},
		{name: "limit at a leg's end", counts: []int{3, 3, 3}, query: "limit=3"},
		{name: "limit across legs", counts: []int{3, 3, 3}, query: "limit=4"},
		{name: "empty legs", counts: []int{0, 0, 2, 0, 0, 0, 1, 0, 0}, query: "limit=1"},
		{name: "empty legs, pages of 2", counts: []int{0, 0, 2, 0, 0, 0, 1, 0, 0}, query: "limit=2"},
		{name: "many legs", counts: many},
		{name: "many legs, pages of 7", counts: many, query: "limit=7"},
		{name: "many legs, pages of 100", counts: many, query: "limit=100"},
		{name: "many legs, pages larger than the list", counts: many, query: "limit=500"},
		{name: "tenant's resourceVersion", counts: []int{2, 2, 2}, query: "resourceVersion=0&limit=3"},
		{name: "table", counts: []int{2, 3, 1, 4}, query: "limit=4", accept: table},
		{name: "failing leg", counts: []int{2, 2, 2, 2}, fail: map[int]int{2: 500}},
		{name: "refused legs", counts: many, left: []int{0, 9, 30}},
		{name: "refused legs, pages of 7", counts: many, query: "limit=7", left: []int{0, 1, 9, 30, 39}},
		{name: "refused in every namespace", counts: []int{2, 2}, fail: map[int]int{0: 403, 1: 403}},
		{name: "failing leg on the second page", counts: []int{2, 2, 2, 2}, query: "limit=3", fail: map[int]int{2: 500}},
		{name: "failing legs", counts: many, fail: map[int]int{9: 403, 12: 500, 30: 403}},
		{name: "deletecollection", counts: []int{1, 2, 0, 3}, method: http.MethodDelete},
		{name: "deletecollection, failing leg", counts: many, method: http.MethodDelete, fail: map[int]int{5: 403}},
		{name: "deletecollection ignores limit", counts: many, method: http.MethodDelete, query: "limit=4"},
	}
}()

// read lists tc through a proxy reading window legs at once.
func (tc joinCase) read(t *testing.T, window int) ([]page, *fakeLegs) {
	t.Helper()
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	header := map[string]string{}
	if tc.accept != "" {
		header["Accept"] = tc.accept
	}
	withJoinWindow(t, window)
	f := newFakeLegs(tc.counts...)
	for ns, code := range tc.fail {
		f.fail[ns] = code
	}
	for _, ns := range tc.left {
		f.fail[ns] = http.StatusForbidden
	}
	return legPages(t, f, method, "/api/v1/configmaps?"+tc.query, header), f
}

// TestJoinListAsOneLegAtATime: reading the legs of an all-namespaces list
// several at once answers, page for page and byte for byte, what reading
// them one after another answers: same items in the same order, same
// resourceVersion, pages that stop at the same place with the same continue
// token, the same error.
func TestJoinListAsOneLegAtATime(t *testing.T) {
	for _, tc := range joinCases {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := tc.read(t, 1)
			require.NotEmpty(t, want)
			if tc.fail == nil {
				var all []string
				for ns, n := range tc.counts {
					if slices.Contains(tc.left, ns) {
						continue
					}
					for j := range n {
						all = append(all, strings.TrimPrefix(legNamespace(ns), "acme-")+"/cm-"+string(rune('0'+j/10))+string(rune('0'+j%10)))
					}
				}
				assert.Equal(t, all, names(t, want))
			} else {
				assert.NotEqual(t, http.StatusOK, want[len(want)-1].code, "the failing leg decides")
			}
			for _, window := range []int{2, 3, legWindow} {
				got, f := tc.read(t, window)
				assert.Equal(t, want, got, "window %d", window)
				most, alone := f.concurrency()
				if tc.method == "" { // a deletecollection needs no resourceVersion
					assert.True(t, alone, "window %d: a leg was read before the first leg gave the resourceVersion", window)
				}
				assert.LessOrEqual(t, most, window)
			}
		})
	}
}

// TestJoinListReadsLegsAtOnce: legs are read up to the window at once, the
// first leg alone with the tenant's resourceVersion, every other at its
// answer's resourceVersion, Exact.
func TestJoinListReadsLegsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, query, firstRV string
	}{
		{name: "no resourceVersion"},
		{name: "tenant's resourceVersion", query: "resourceVersion=0", firstRV: "0"},
		{name: "pages", query: "limit=50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeLegs(make([]int, 40)...)
			for i := range f.counts {
				f.counts[i] = 3
				f.delay[i] = 10 * time.Millisecond
			}
			pages := legPages(t, f, http.MethodGet, "/api/v1/configmaps?"+tc.query, nil)
			require.Equal(t, http.StatusOK, pages[len(pages)-1].code)
			assert.Len(t, names(t, pages), 120)
			most, alone := f.concurrency()
			assert.True(t, alone)
			assert.Greater(t, most, 1, "the legs were read one after another")
			assert.LessOrEqual(t, most, legWindow)
			legs := f.seen()
			if tc.query != "limit=50" {
				assert.Len(t, legs, len(f.counts), "every leg is read once")
			}
			assert.Equal(t, 0, legs[0].ns)
			assert.Equal(t, tc.firstRV, legs[0].query.Get("resourceVersion"))
			assert.Empty(t, legs[0].query.Get("resourceVersionMatch"))
			for _, leg := range legs[1:] {
				if leg.query.Get("continue") != "" {
					continue
				}
				assert.Equal(t, "100", leg.query.Get("resourceVersion"), "leg %d", leg.ns)
				assert.Equal(t, "Exact", leg.query.Get("resourceVersionMatch"), "leg %d", leg.ns)
			}
		})
	}
}

// TestJoinListPageStopsWhereItDid: a page that ends inside a leg ends with
// a continue token into that leg, and no more than a window's worth of legs
// after it were asked for.
func TestJoinListPageStopsWhereItDid(t *testing.T) {
	f := newFakeLegs(make([]int, 40)...)
	for i := range f.counts {
		f.counts[i] = 3
	}
	p, _ := newTestProxy(t, f.ServeHTTP)
	rec := request(p, http.MethodGet, "/api/v1/configmaps?limit=4", nil, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	pages := []page{{rec.Code, rec.Body.String()}}
	assert.Equal(t, []string{"ns000/cm-00", "ns000/cm-01", "ns000/cm-02", "ns001/cm-00"}, names(t, pages))
	var doc struct {
		Metadata struct{ Continue, ResourceVersion string } `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	assert.Equal(t, "100", doc.Metadata.ResourceVersion)
	tok, err := p.tr.DecodeContinue(doc.Metadata.Continue, translate.PlanFanOut)
	require.NoError(t, err)
	assert.Equal(t, legNamespace(1), tok.Namespace)
	assert.NotEmpty(t, tok.Continue)
	assert.Equal(t, "100", tok.ResourceVersion)
	asked := map[int]bool{}
	for _, leg := range f.seen() {
		asked[leg.ns] = true
	}
	assert.LessOrEqual(t, len(asked), 2+legWindow-1, "legs asked for: %v", asked)
}

// TestJoinListFirstErrorInOrderWins: the first failing leg in order decides
// the answer, also when a later leg failed before it.
func TestJoinListFirstErrorInOrderWins(t *testing.T) {
	f := newFakeLegs(1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
	f.fail[3], f.delay[3] = http.StatusServiceUnavailable, 100*time.Millisecond
	f.fail[7] = http.StatusInternalServerError
	p, _ := newTestProxy(t, f.ServeHTTP)
	rec := request(p, http.MethodGet, "/api/v1/configmaps", nil, "")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "ns003 failed")
	f.mu.Lock()
	defer f.mu.Unlock()
	order := map[int]int{}
	for i, ns := range f.answered {
		order[ns] = i
	}
	require.Contains(t, order, 7, "leg 7 was read ahead")
	assert.Less(t, order[7], order[3], "leg 7 failed first")
}

// TestJoinListCancelsLegs: the legs still in flight are cancelled once the
// answer is decided by a failing leg, or when the client goes away.
func TestJoinListCancelsLegs(t *testing.T) {
	t.Run("after a failing leg", func(t *testing.T) {
		f := newFakeLegs(1, 1, 1, 1, 1, 1, 1, 1)
		f.fail[1], f.delay[1] = http.StatusInternalServerError, 200*time.Millisecond // the legs after it arrive meanwhile
		for i := 2; i < len(f.counts); i++ {
			f.block[i] = true
		}
		p, _ := newTestProxy(t, f.ServeHTTP)
		rec := request(p, http.MethodGet, "/api/v1/configmaps", nil, "")
		assert.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())
		require.Eventually(t, func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.cancelled == len(f.legs)-2
		}, 10*time.Second, 10*time.Millisecond, "the blocked legs were not cancelled")
		assert.Greater(t, len(f.seen()), 2, "no leg was read ahead")
	})
	t.Run("when the client goes away", func(t *testing.T) {
		f := newFakeLegs(1, 1, 1, 1, 1, 1)
		for i := 1; i < len(f.counts); i++ {
			f.block[i] = true
		}
		p, _ := newTestProxy(t, f.ServeHTTP)
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest(http.MethodGet, "/api/v1/configmaps", nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+testToken)
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.ServeHTTP(httptest.NewRecorder(), req)
		}()
		require.Eventually(t, func() bool { return len(f.seen()) == len(f.counts) }, 10*time.Second, 10*time.Millisecond)
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the list did not end when its client went away")
		}
		require.Eventually(t, func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.cancelled == len(f.counts)-1
		}, 10*time.Second, 10*time.Millisecond, "the legs in flight were not cancelled")
	})
}

// TestJoinListLegAnswers: a leg's answer that is not JSON is the list's
// failure, as a 502 of that body; one that is JSON but no list the
// translator can read fails the list with the translator's status; the
// legs' items are joined in order, what is not the tenant's left out.
func TestJoinListLegAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, second string
		code         int
		want         string
	}{
		{"joined", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[` +
			`{"metadata":{"name":"b","namespace":"acme-z"}},{"metadata":{"name":"x","namespace":"kube-system"}}]}`,
			http.StatusOK, `"items":[{"metadata":{"name":"a","namespace":"a"}},{"metadata":{"name":"b","namespace":"z"}}]`},
		{"not JSON", `<html>oops</html>`, http.StatusServiceUnavailable, `unexpected answer 502: \u003chtml\u003eoops\u003c/html\u003e`},
		{"not a list the translator reads", `{"kind":"ConfigMapList","apiVersion":"v1","items":[1]}`, http.StatusBadRequest, "malformed upstream object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.Header.Get("Impersonate-User") == "" && r.URL.Path == "/api/v1/namespaces":
					_, _ = w.Write([]byte(`{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
						`{"metadata":{"name":"acme-a"}},{"metadata":{"name":"acme-z"}}]}`))
				case r.URL.Path == "/api/v1/namespaces/acme-a/configmaps":
					_, _ = w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"a","namespace":"acme-a"}}]}`))
				default:
					_, _ = w.Write([]byte(tc.second))
				}
			})
			rec := request(p, http.MethodGet, "/api/v1/configmaps", nil, "")
			assert.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), tc.want)
		})
	}
}
