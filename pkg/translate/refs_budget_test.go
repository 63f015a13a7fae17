package translate

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countingShared is fakeShared that counts the lookups it answers.
type countingShared struct {
	fakeShared
	calls atomic.Int64
}

func (c *countingShared) TenantOwns(gr schema.GroupResource, name string) bool {
	c.calls.Add(1)
	return c.fakeShared.TenantOwns(gr, name)
}

// statefulSetWithClasses is a StatefulSet whose volume claim templates name
// the given storage classes.
func statefulSetWithClasses(classes []string) map[string]any {
	var templates []any
	for i, c := range classes {
		templates = append(templates, map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("v%d", i)},
			"spec":     map[string]any{"storageClassName": c},
		})
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "db", "namespace": "default"},
		"spec":     map[string]any{"volumeClaimTemplates": templates},
	}
}

// TestSharedRefsAreBounded: one object may make the proxy look up at most
// MaxSharedRefs different shared objects; past that it is refused, before
// any lookup beyond the bound.
func TestSharedRefsAreBounded(t *testing.T) {
	distinct := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("class-%d", i)
		}
		return out
	}
	same := make([]string, 1000)
	for i := range same {
		same[i] = "fast"
	}
	tests := []struct {
		name    string
		classes []string
		refused bool
		lookups int64
	}{
		{name: "a few", classes: []string{"fast", "standard"}, lookups: 2},
		{name: "exactly the bound", classes: distinct(MaxSharedRefs), lookups: MaxSharedRefs},
		{name: "one past the bound", classes: distinct(MaxSharedRefs + 1), refused: true, lookups: MaxSharedRefs},
		{name: "thousands", classes: distinct(5000), refused: true, lookups: MaxSharedRefs},
		{name: "one name a thousand times", classes: same, lookups: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shared := &countingShared{}
			tr := New(MustTenant("acme"), Options{Shared: shared})
			err := tr.ObjectToUpstream(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, statefulSetWithClasses(tt.classes))
			if !tt.refused {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Equal(t, int32(http.StatusUnprocessableEntity), st.Code)
				assert.Contains(t, st.Message, fmt.Sprintf("more than %d different shared objects", MaxSharedRefs))
			}
			// The translator asks per reference; the proxy's cache answers
			// repeats (TestSharedLookupCache), so only distinct names cost.
			assert.LessOrEqual(t, shared.calls.Load(), tt.lookups)
		})
	}
}
