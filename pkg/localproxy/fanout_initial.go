package localproxy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// watchMerge merges the events of a fan-out watch's legs into one stream
// and stands between them and the client for the bookmarks.
//
// A leg's bookmark is not passed on: its resourceVersion says that leg has
// sent every event up to it, not the others, and a client resuming from it
// would miss the others' events below it still on their way. The merge
// sends bookmarks of its own instead (fanout_progress.go).
//
// A streaming list (sendInitialEvents=true, client-go's WatchListClient,
// KEP-3157) ends its initial events with one bookmark annotated
// k8s.io/initial-events-end; every leg sends its own. The merge holds them
// back and sends one, once every leg open when the watch started (or
// opened for a namespace made before that bookmark) has sent its own: all
// initial events of all legs come before it. Its resourceVersion is the
// least of the legs' ones: a leg's events above its own bookmark are the
// only ones the initial state may lack, and from the least the client
// resumes with none of them lost (the other legs replay, from there, events
// whose outcome it already has, as after any resume from an older
// resourceVersion). Once any leg ended, the merge sends no bookmark: the
// client's streaming list is incomplete and it starts a new one.
type watchMerge struct {
	out *lockedWriter
	// bookmarks is whether the client asked for bookmarks (without, the
	// API server sends none), streaming whether for the initial events too.
	bookmarks, streaming bool
	// bookmark renders the merged bookmark at a resourceVersion, for a
	// merge of no leg (the kinds table's kind: a custom resource's is not
	// known); template is a leg's, translated, which the merged one is
	// made of once there is one.
	bookmark func(rv string) []byte

	mu       sync.Mutex
	legs     map[int]bool // the legs open
	pending  map[int]bool // legs whose initial-events-end is still to come
	progress map[int]uint64
	// progressed is the resourceVersion of the last bookmark sent.
	progressed uint64
	least      uint64
	rv         string // the least resourceVersion so far, as the legs spelt it
	emptyRV    string // the resourceVersion of a merge of no leg
	template   []byte
	ready      bool // every leg open at the start is expected
	sent       bool
	ended      bool
}

// newWatchMerge returns the merge of the fan-out watch u writing to out.
func newWatchMerge(out *lockedWriter, u *translate.UpstreamRequest) *watchMerge {
	gv := u.Info.APIVersion
	if u.Info.APIGroup != "" {
		gv = u.Info.APIGroup + "/" + gv
	}
	kind := u.Rule.Kind
	bookmarks := u.Query.Get("allowWatchBookmarks") == "true"
	return &watchMerge{
		out:       out,
		bookmarks: bookmarks,
		streaming: bookmarks && u.Query.Get("sendInitialEvents") == "true",
		legs:      map[int]bool{},
		pending:   map[int]bool{},
		progress:  map[int]uint64{},
		bookmark: func(rv string) []byte {
			b, _ := json.Marshal(map[string]any{"type": "BOOKMARK", "object": map[string]any{
				"kind": kind, "apiVersion": gv,
				"metadata": map[string]any{"resourceVersion": rv, "annotations": map[string]string{metav1.InitialEventsAnnotationKey: "true"}},
			}})
			return append(b, '\n')
		},
	}
}

// expect registers leg i as open and as one whose initial events come
// before the merged bookmark, unless that bookmark was sent already or none
// is asked for.
func (m *watchMerge) expect(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.legs[i] = true
	if m.streaming && !m.sent && !m.ended {
		m.pending[i] = true
	}
}

// started says every leg open at the start is expected: the merged
// bookmark is sent no sooner. If they all sent theirs already, it is sent
// now; with no leg at all (a tenant without namespaces, or all of them
// going), at rv, the resourceVersion of the tenant's namespace list.
func (m *watchMerge) started(rv string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ready, m.emptyRV = true, rv
	m.sendIfComplete()
}

// end says a leg's stream ended: the merged stream ends too, with no
// bookmark after it.
func (m *watchMerge) end() {
	m.mu.Lock()
	m.ended = true
	m.mu.Unlock()
}

// leg returns the writer leg i's translated events go to.
func (m *watchMerge) leg(i int) *mergedLeg { return &mergedLeg{m: m, i: i} }

// legBookmark takes in leg i's bookmark ev.
func (m *watchMerge) legBookmark(i int, ev []byte) {
	var bm struct {
		Object struct {
			Metadata struct {
				ResourceVersion string            `json:"resourceVersion"`
				Annotations     map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(ev, &bm) != nil {
		return
	}
	rv := bm.Object.Metadata.ResourceVersion
	n, err := strconv.ParseUint(rv, 10, 64)
	numeric := err == nil
	m.mu.Lock()
	defer m.mu.Unlock()
	if numeric {
		m.progress[i] = n
	}
	if bm.Object.Metadata.Annotations[metav1.InitialEventsAnnotationKey] == "true" && m.pending[i] {
		delete(m.pending, i)
		if m.template == nil {
			m.template = bytes.Clone(ev)
		}
		switch {
		case !numeric && m.rv == "":
			m.rv = rv // not the API server's: pass the first on
		case numeric && (m.rv == "" || n < m.least):
			m.least, m.rv = n, rv
		}
		m.sendIfComplete()
	}
	if numeric {
		m.sendProgress(ev)
	}
}

// sendIfComplete writes the merged bookmark once every expected leg sent
// its own, if it is to be sent at all; m.mu is held.
func (m *watchMerge) sendIfComplete() {
	if !m.streaming || !m.ready || len(m.pending) > 0 || m.sent || m.ended {
		return
	}
	m.sent, m.progressed = true, m.least
	rv := m.rv
	if rv == "" {
		rv = m.emptyRV
	}
	if _, err := m.out.Write(m.render(m.template, rv, true)); err == nil {
		m.out.Flush()
	}
}

// render returns a bookmark at rv: template (a leg's, translated) with rv
// in it, annotated as the end of the initial events or not; with no
// template, one of the kind's.
func (m *watchMerge) render(template []byte, rv string, initialEnd bool) []byte {
	ev, err := translate.DecodeDocument(template)
	obj, _ := ev["object"].(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	if template == nil || err != nil || meta == nil {
		return m.bookmark(rv)
	}
	meta["resourceVersion"] = rv
	ann, _ := meta["annotations"].(map[string]any)
	switch {
	case initialEnd && ann == nil:
		meta["annotations"] = map[string]any{metav1.InitialEventsAnnotationKey: "true"}
	case initialEnd:
		ann[metav1.InitialEventsAnnotationKey] = "true"
	case ann != nil:
		delete(ann, metav1.InitialEventsAnnotationKey)
		if len(ann) == 0 {
			delete(meta, "annotations")
		}
	}
	var out bytes.Buffer
	if translate.EncodeDocument(&out, ev) != nil {
		return m.bookmark(rv)
	}
	return out.Bytes()
}

// mergedLeg is the writer of one leg's translated events: every event but
// a bookmark goes to the client as it comes.
type mergedLeg struct {
	m *watchMerge
	i int
}

// bookmarkEvent starts every bookmark event TranslateWatch writes.
var bookmarkEvent = []byte(`{"type":"BOOKMARK"`)

// Write takes one whole event.
func (l *mergedLeg) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, bookmarkEvent) {
		l.m.legBookmark(l.i, b)
		return len(b), nil
	}
	return l.m.out.Write(b)
}

// Flush flushes the response.
func (l *mergedLeg) Flush() { l.m.out.Flush() }
