package translate

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestSleepKinds: the rows sleep visits, in table order, with what it does
// to each; a kind with a scale subresource that runs pods is scaled, a
// CronJob suspended, everything else left alone.
func TestSleepKinds(t *testing.T) {
	got := map[schema.GroupResource]SleepAction{}
	var order []string
	for _, row := range SleepKinds() {
		got[row.Resource] = row.Sleep
		order = append(order, row.Kind)
	}
	assert.Equal(t, []string{"ReplicationController", "Deployment", "ReplicaSet", "StatefulSet", "CronJob"}, order)
	for _, tc := range []struct {
		group, kind string
		want        SleepAction
	}{
		{"", "ReplicationController", SleepScale},
		{"apps", "Deployment", SleepScale},
		{"apps", "ReplicaSet", SleepScale},
		{"apps", "StatefulSet", SleepScale},
		{"batch", "CronJob", SleepSuspend},
		{"apps", "DaemonSet", SleepNone},
		{"batch", "Job", SleepNone},
		{"", "Pod", SleepNone},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			assert.Equal(t, tc.want, got[KindResource(tc.group, tc.kind)])
			if tc.want == SleepScale {
				row, _ := LookupKind(KindResource(tc.group, tc.kind))
				assert.True(t, slices.ContainsFunc(row.Subresources, func(s Subresource) bool { return s.Name == "scale" }),
					"a kind sleep scales has a scale subresource")
			}
		})
	}
}
