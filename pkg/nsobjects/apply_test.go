package nsobjects

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// script is a Writer that answers each write by the object's name and
// records the writes in the order they started.
type script struct {
	mu      sync.Mutex
	answers map[string]error
	writes  []string
}

func (s *script) do(op string, o Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, op+" "+o.GetName())
	return s.answers[o.GetName()]
}

func (s *script) Create(_ context.Context, o Object) error { return s.do("create", o) }
func (s *script) Update(_ context.Context, o Object) error { return s.do("update", o) }
func (s *script) Delete(_ context.Context, o Object) error { return s.do("delete", o) }

func TestApply(t *testing.T) {
	boom := errors.New("boom")
	plan := Plan{
		Create: []Object{cm("a", "new", "v", ""), cm("a", "taken", "v", ""), cm("a", "fails", "v", "")},
		Update: []Object{cm("a", "changed", "v", "3"), cm("a", "stale", "v", "3")},
		Delete: []Object{cm("a", "old", "v", "4"), cm("a", "gone", "v", "4")},
	}
	cases := []struct {
		name  string
		limit int
	}{{"one at a time", 1}, {"eight at once", 8}, {"no bound given: one at a time", 0}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &script{answers: map[string]error{
				"taken": ErrTaken, "fails": boom, "stale": ErrStale, "gone": ErrStale,
			}}
			res, err := Apply(t.Context(), plan, w, tc.limit)
			require.ErrorIs(t, err, boom)
			assert.NotErrorIs(t, err, ErrStale, "a stale write is left to the next reconcile, no failure")
			assert.Equal(t, 1, res.Created)
			assert.Equal(t, 1, res.Updated)
			assert.Equal(t, 1, res.Deleted)
			assert.Equal(t, []string{"taken"}, names(res.Taken))
			assert.Len(t, w.writes, 7, "a failed write cancels no other")
			assert.ElementsMatch(t, []string{"create new", "create taken", "create fails"}, w.writes[:3], "creates first")
			assert.ElementsMatch(t, []string{"delete old", "delete gone"}, w.writes[5:], "deletes last")
		})
	}
}

func names(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

func TestPreconditions(t *testing.T) {
	p := Preconditions(cm("a", "c", "v", "9"))
	assert.Equal(t, "9", *p.ResourceVersion)
	assert.Equal(t, "uid-a-c", string(*p.UID))
}

// TestPerNamespace: the results come in the order of the namespaces,
// however many run at once; the first error is returned.
func TestPerNamespace(t *testing.T) {
	nss := []string{"a", "b", "c", "d"}
	got, err := PerNamespace(t.Context(), nss, 2, func(_ context.Context, ns string) (string, error) { return "in " + ns, nil })
	require.NoError(t, err)
	assert.Equal(t, []string{"in a", "in b", "in c", "in d"}, got)
	boom := errors.New("boom")
	_, err = PerNamespace(t.Context(), nss, 2, func(_ context.Context, ns string) (string, error) {
		if ns == "c" {
			return "", boom
		}
		return ns, nil
	})
	assert.ErrorIs(t, err, boom)
}
