package localproxy

import "strconv"

// A client that asked for bookmarks (allowWatchBookmarks) resumes its watch
// from the resourceVersion of the last one, which keeps it from resuming
// from one so old that the API server answers 410 Gone (and the client
// lists everything again). A leg's bookmark cannot be passed on
// (fanout_initial.go); the merge sends one at the least resourceVersion
// every open leg has reached with a bookmark of its own: every leg has sent
// every event up to it, so a client resuming from there loses none. The API
// server sends every watch a bookmark about once a minute and one before it
// ends it, so every leg reports, and a quiet tenant's watches keep a recent
// resourceVersion.

// sendProgress sends that bookmark, made of a leg's bookmark ev, when the
// least resourceVersion moved on since the last sent; not before the end of
// the initial events of a streaming list. m.mu is held.
func (m *watchMerge) sendProgress(ev []byte) {
	if !m.bookmarks || !m.ready || m.ended || (m.streaming && !m.sent) || len(m.legs) == 0 {
		return
	}
	var least uint64
	for i := range m.legs {
		n, ok := m.progress[i]
		if !ok {
			return // a leg that has not reported yet
		}
		if least == 0 || n < least {
			least = n
		}
	}
	if least <= m.progressed {
		return
	}
	m.progressed = least
	if _, err := m.out.Write(m.render(ev, strconv.FormatUint(least, 10), false)); err == nil {
		m.out.Flush()
	}
}
