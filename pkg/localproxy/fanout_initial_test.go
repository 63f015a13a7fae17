package localproxy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// legEvent is one event of a leg in TestWatchMerge: an object named name,
// a bookmark at rv (end: the initial-events-end one), or the leg's end.
type legEvent struct {
	leg  int
	name string
	rv   string
	end  bool
	stop bool
}

func added(leg int, name string) legEvent { return legEvent{leg: leg, name: name} }
func initialEnd(leg int, rv string) legEvent {
	return legEvent{leg: leg, rv: rv, end: true}
}

// TestWatchMerge: a streaming list through a fan-out gets exactly one
// initial-events-end bookmark, after every initial event of every leg, at
// the least of the legs' resourceVersions; a leg's other bookmarks are not
// passed on, but a bookmark at the least every leg reached with its own,
// once it moves on; none once a leg ended, nor to a client that asked for
// none.
func TestWatchMerge(t *testing.T) {
	const mark, progress = `BOOKMARK@`, `PROGRESS@`
	const bookmarks = "watch=true&allowWatchBookmarks=true"
	for _, tc := range []struct {
		name   string
		query  string
		legs   int
		events []legEvent
		late   int // a leg opened at its first event (a new namespace); -1: none
		want   []string
	}{
		{"two legs, the first bookmark after one item", streamingQuery, 2, []legEvent{
			added(0, "a1"), initialEnd(0, "120"), added(1, "b1"), added(1, "b2"), initialEnd(1, "100"),
		}, -1, []string{"a1", "b1", "b2", mark + "100"}},
		{"an event after a leg's own bookmark comes through at once", streamingQuery, 2, []legEvent{
			added(0, "a1"), initialEnd(0, "100"), added(0, "a2"), added(1, "b1"), initialEnd(1, "130"), added(1, "b2"),
		}, -1, []string{"a1", "a2", "b1", mark + "100", "b2"}},
		{"resourceVersions compared as numbers", streamingQuery, 2, []legEvent{
			initialEnd(0, "99"), initialEnd(1, "100"),
		}, -1, []string{mark + "99"}},
		{"a leg that ends first: no bookmark", streamingQuery, 2, []legEvent{
			added(0, "a1"), initialEnd(0, "100"), {leg: 1, stop: true}, initialEnd(1, "100"),
		}, -1, []string{"a1"}},
		{"no leg: the namespaces' resourceVersion", streamingQuery, 0, nil, -1, []string{mark + "7"}},
		{"a leg's other bookmarks come as the merge's own", streamingQuery, 1, []legEvent{
			{leg: 0, rv: "50"}, added(0, "a1"), initialEnd(0, "60"), {leg: 0, rv: "70"}, added(0, "a2"),
		}, -1, []string{"a1", mark + "60", progress + "70", "a2"}},
		{"progress: the least every leg reached", bookmarks, 2, []legEvent{
			{leg: 0, rv: "50"}, {leg: 1, rv: "70"}, {leg: 0, rv: "80"}, added(0, "a1"), {leg: 1, rv: "75"}, {leg: 1, rv: "75"},
		}, -1, []string{progress + "50", progress + "70", "a1", progress + "75"}},
		{"progress waits for every leg", bookmarks, 2, []legEvent{
			{leg: 0, rv: "50"}, added(1, "b1"), {leg: 0, rv: "60"},
		}, -1, []string{"b1"}},
		{"a namespace made after the bookmark", streamingQuery, 1, []legEvent{
			initialEnd(0, "60"), added(1, "n1"), initialEnd(1, "80"),
		}, 1, []string{mark + "60", "n1"}},
		{"a namespace made before the bookmark", streamingQuery, 1, []legEvent{
			added(0, "a1"), added(1, "n1"), initialEnd(0, "60"), added(1, "n2"), initialEnd(1, "50"),
		}, 1, []string{"a1", "n1", "n2", mark + "50"}},
		{"a plain watch gets no bookmark", "watch=true", 2, []legEvent{
			added(0, "a1"), initialEnd(0, "60"), {leg: 1, rv: "70"}, added(1, "b1"),
		}, -1, []string{"a1", "b1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, rec := testMerge(t, "/api/v1/configmaps", tc.query)
			for i := range tc.legs {
				m.expect(i)
			}
			m.started("7")
			write := func(ev legEvent) {
				switch {
				case ev.stop:
					m.end()
				case ev.rv != "":
					ann := ""
					if ev.end {
						ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
					}
					fmt.Fprintf(m.leg(ev.leg), `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":%q%s}}}`+"\n", ev.rv, ann)
				default:
					fmt.Fprintf(m.leg(ev.leg), `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":"x"}}}`+"\n", ev.name)
				}
			}
			opened := false
			for _, ev := range tc.events {
				if ev.leg == tc.late && !opened {
					m.expect(tc.late)
					opened = true
				}
				write(ev)
			}
			assert.Equal(t, tc.want, mergedEvents(t, rec.Body.String(), mark))
		})
	}
}

// TestWatchMergeWaitsForTheStart: a leg that sends its bookmark before the
// other legs are open does not end the initial events; the merged bookmark
// comes once the last one expected sent its own, or at the start if they
// all did.
func TestWatchMergeWaitsForTheStart(t *testing.T) {
	const end = `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":%q,"annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
	for _, tc := range []struct {
		name    string
		laterRV string // leg 1's bookmark after the start; "": before
		want    []string
	}{
		{"the last after the start", "40", []string{"BOOKMARK@40"}},
		{"all before the start", "", []string{"BOOKMARK@50"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, rec := testMerge(t, "/api/v1/configmaps", streamingQuery)
			m.expect(0)
			fmt.Fprintf(m.leg(0), end, "50")
			assert.Empty(t, rec.Body.String(), "a bookmark before the other legs are open")
			m.expect(1)
			if tc.laterRV == "" {
				fmt.Fprintf(m.leg(1), end, "60")
			}
			m.started("7")
			if tc.laterRV != "" {
				assert.Empty(t, rec.Body.String(), "a bookmark before leg 1's")
				fmt.Fprintf(m.leg(1), end, tc.laterRV)
			}
			assert.Equal(t, tc.want, mergedEvents(t, rec.Body.String(), "BOOKMARK@"))
		})
	}
}

// TestWatchMergeKeepsTheLegsKind: the merged bookmark of a custom
// resource, whose kind the kinds table does not know, is a leg's own with
// the merged resourceVersion.
func TestWatchMergeKeepsTheLegsKind(t *testing.T) {
	m, rec := testMerge(t, "/apis/stable.example.com/v1/crontabs", streamingQuery)
	m.expect(0)
	m.expect(1)
	m.started("7")
	for i, rv := range []string{"30", "20"} {
		fmt.Fprintf(m.leg(i), `{"type":"BOOKMARK","object":{"kind":"CronTab","apiVersion":"stable.example.com/v1","metadata":{"resourceVersion":%q,"annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", rv)
	}
	assert.JSONEq(t, `{"type":"BOOKMARK","object":{"kind":"CronTab","apiVersion":"stable.example.com/v1","metadata":{"resourceVersion":"20","annotations":{"k8s.io/initial-events-end":"true"}}}}`, rec.Body.String())
}

// streamingQuery is the query of a streaming list, as client-go's sends it.
const streamingQuery = "watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"

// testMerge returns the merge of acme's watch of path with query, and what
// it writes to.
func testMerge(t *testing.T, path, query string) (*watchMerge, *httptest.ResponseRecorder) {
	t.Helper()
	q, err := url.ParseQuery(query)
	require.NoError(t, err)
	u, err := translate.New(translate.MustTenant("acme"), translate.Options{}).TranslateRequest(translate.Request{Method: "GET", Path: path, Query: q})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	return newWatchMerge(&lockedWriter{w: rec}, u), rec
}

// mergedEvents reads a merged stream as the names of its objects and, for
// a bookmark, mark and its resourceVersion.
func mergedEvents(t *testing.T, stream, mark string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(stream), "\n") {
		if line == "" {
			continue
		}
		doc, err := translate.DecodeDocument([]byte(line))
		require.NoError(t, err, line)
		obj, _ := doc["object"].(map[string]any)
		meta, _ := obj["metadata"].(map[string]any)
		if doc["type"] == "ERROR" {
			got = append(got, fmt.Sprintf("ERROR %v", obj["code"]))
			continue
		}
		if doc["type"] == "BOOKMARK" {
			require.Equal(t, "ConfigMap", obj["kind"])
			if ann, _ := meta["annotations"].(map[string]any); ann["k8s.io/initial-events-end"] == "true" {
				got = append(got, mark+meta["resourceVersion"].(string))
			} else {
				got = append(got, "PROGRESS@"+meta["resourceVersion"].(string))
			}
			continue
		}
		got = append(got, meta["name"].(string))
	}
	return got
}

// TestFanOutStreamingList: through the proxy, a streaming list over three
// namespaces whose legs each end their initial events with their own
// bookmark gets one, after all their items, translated; when a leg fails
// (410 Gone) before its bookmark, the client gets the failure and no
// bookmark.
func TestFanOutStreamingList(t *testing.T) {
	for _, tc := range []struct {
		name string
		gone string // the namespace whose leg fails after one item
		want []string
	}{
		{"every leg ends its initial events", "", []string{"cm0", "cm0", "cm0", "cm1", "cm1", "cm1", "BOOKMARK@12"}},
		{"a leg gone", "acme-b", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProxy(t, streamingLegs(tc.gone))
			// The client goes once it has the bookmark; a minute at most,
			// should it never come.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			req := httptest.NewRequestWithContext(ctx, "GET", "/api/v1/configmaps?"+streamingQuery, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			rec := &untilBookmark{ResponseRecorder: httptest.NewRecorder(), cancel: cancel}
			p.ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			got := mergedEvents(t, rec.Body.String(), "BOOKMARK@")
			assert.NotContains(t, rec.Body.String(), "acme-")
			if tc.gone == "" {
				require.Len(t, got, len(tc.want), rec.Body.String())
				assert.ElementsMatch(t, tc.want[:6], got[:6])
				assert.Equal(t, tc.want[6], got[6], "the bookmark comes last")
				return
			}
			assert.Contains(t, got, "ERROR 410")
			for _, g := range got {
				assert.NotContains(t, g, "BOOKMARK", "a bookmark of an incomplete list: %v", got)
			}
		})
	}
}

// streamingLegs is an upstream of the namespaces acme-a, acme-b and acme-c,
// whose streaming lists send two items and their initial-events-end
// bookmark, each at a resourceVersion of its own, then wait; gone's sends
// one item and 410 Gone, and ends.
func streamingLegs(gone string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		own := r.Header.Get("Impersonate-User") == ""
		switch {
		case own && r.URL.Path == "/api/v1/namespaces" && r.URL.Query().Get("watch") == "":
			fmt.Fprint(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[`+
				`{"metadata":{"name":"acme-a"}},{"metadata":{"name":"acme-b"}},{"metadata":{"name":"acme-c"}}]}`)
		case own && r.URL.Path == "/api/v1/namespaces":
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			q := r.URL.Query()
			if q.Get("sendInitialEvents") != "true" || q.Get("allowWatchBookmarks") != "true" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			ns := strings.Split(r.URL.Path, "/")[4]
			for i := range 2 {
				fmt.Fprintf(w, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm%d","namespace":%q,"resourceVersion":"5"}}}`+"\n", i, ns)
				if ns == gone {
					fmt.Fprint(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}}`+"\n")
					return
				}
			}
			rv := map[string]string{"acme-a": "30", "acme-b": "12", "acme-c": "20"}[ns]
			fmt.Fprintf(w, `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":%q,"annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", rv)
			w.(http.Flusher).Flush()
			<-r.Context().Done() // a watch goes on
		}
	}
}

// untilBookmark records a response and cancels the request once it holds
// an initial-events-end bookmark.
type untilBookmark struct {
	*httptest.ResponseRecorder
	cancel context.CancelFunc
}

func (u *untilBookmark) Write(b []byte) (int, error) {
	n, err := u.ResponseRecorder.Write(b)
	if strings.Contains(string(b), "initial-events-end") {
		u.cancel()
	}
	return n, err
}
