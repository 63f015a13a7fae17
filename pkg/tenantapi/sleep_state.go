package tenantapi

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Sleep states of a tenant.
const (
	// SleepStateAsleep: the tenant's workloads are (being) scaled to 0 and
	// its CronJobs suspended.
	SleepStateAsleep = "Asleep"
	// SleepStateAwake: the recorded workloads are (being) restored.
	SleepStateAwake = "Awake"
)

// SleptByServer is SleepState.By of a tenant the server put to sleep.
const SleptByServer = "server"

// SleepState is status.sleep of a Tenant record: only the platform writes
// it (a tenant identity may not write Tenant records), so nothing a tenant
// writes decides what `tenant wake` restores. State is what was last asked
// for; Converged tells that every recorded workload was brought to it since.
// Every change is an update carrying the record's resourceVersion, so two
// writers (two server replicas, a user and the server) take turns.
type SleepState struct {
	// State is SleepStateAsleep or SleepStateAwake.
	State string `json:"state"`
	// Converged is true once the workloads were brought to State.
	Converged bool `json:"converged,omitempty"`
	// Since is when State was last changed.
	Since metav1.Time `json:"since"`
	// By is SleptByServer when the server put the tenant to sleep for its
	// policy's sleepAfter (then any request of the tenant's wakes it), ""
	// when a user did (then only a write that may run pods does).
	By string `json:"by,omitempty"`
	// Workloads are what sleep scaled down or suspended, with what wake
	// restores. They stay after a wake, so that a writer whose work was
	// overtaken can still restore from them.
	Workloads []SleptWorkload `json:"workloads,omitempty"`
}

// SleptWorkload is one workload sleep changed: a scalable one with its
// replicas before, or a CronJob with its suspend flag before.
type SleptWorkload struct {
	// Resource is the plural resource: deployments, statefulsets,
	// replicasets, replicationcontrollers or cronjobs.
	Resource string `json:"resource"`
	// Namespace is the upstream namespace.
	Namespace string `json:"namespace"`
	// Name is the upstream name.
	Name string `json:"name"`
	// UID is the object's; one recreated under the same name is not touched.
	UID types.UID `json:"uid"`
	// Replicas is spec.replicas before sleep (not for CronJobs).
	Replicas *int32 `json:"replicas,omitempty"`
	// Suspend is spec.suspend before sleep (CronJobs only).
	Suspend *bool `json:"suspend,omitempty"`
}

// Key is resource/namespace/name.
func (w SleptWorkload) Key() string { return w.Resource + "/" + w.Namespace + "/" + w.Name }

// Asleep reports whether a record's sleep state asks for sleep.
func (t *Tenant) Asleep() bool {
	return t.Status.Sleep != nil && t.Status.Sleep.State == SleepStateAsleep
}

// SleepWith is the state to record before scaling live (the workloads
// found now) down. A tenant awake and converged is recorded afresh: live
// is then the truth. Otherwise (asleep, or between states) a recorded
// workload keeps its record, for live may show the 0 an earlier sleep set
// or a count a tenant raised while asleep; an unrecorded one is added.
// Only workloads that run something are recorded: replicas above 0, or a
// CronJob not suspended.
func (s *SleepState) SleepWith(live []SleptWorkload, now metav1.Time, by string) SleepState {
	next := SleepState{State: SleepStateAsleep, Since: now, By: by}
	recorded := map[string]SleptWorkload{}
	if s != nil && !(s.State == SleepStateAwake && s.Converged) {
		if s.State == SleepStateAsleep {
			next.Since = s.Since
		}
		for _, w := range s.Workloads {
			recorded[w.Key()] = w
		}
	}
	for _, w := range live {
		if old, ok := recorded[w.Key()]; ok && old.UID == w.UID {
			continue
		}
		delete(recorded, w.Key())
		if runs(w) {
			recorded[w.Key()] = w
		}
	}
	for _, w := range recorded {
		next.Workloads = append(next.Workloads, w)
	}
	slices.SortFunc(next.Workloads, func(a, b SleptWorkload) int { return strings.Compare(a.Key(), b.Key()) })
	return next
}

// Wake is the state to record before restoring.
func (s *SleepState) Wake(now metav1.Time) SleepState {
	next := SleepState{State: SleepStateAwake, Since: now}
	if s != nil {
		next.Workloads = s.Workloads
	}
	return next
}

// runs reports whether a live workload runs pods (or may start them).
func runs(w SleptWorkload) bool {
	if w.Replicas != nil {
		return *w.Replicas > 0
	}
	return w.Suspend == nil || !*w.Suspend
}

// Target is what w is brought to in state: 0 replicas or suspended when
// asleep, the recorded values when awake.
func (w SleptWorkload) Target(state string) SleptWorkload {
	out := w
	if state != SleepStateAsleep {
		return out
	}
	if w.Replicas != nil {
		out.Replicas = new(int32)
	} else {
		suspend := true
		out.Suspend = &suspend
	}
	return out
}

// Matches reports whether live already has target's values.
func (w SleptWorkload) Matches(live SleptWorkload) bool {
	if w.Replicas != nil {
		return live.Replicas != nil && *live.Replicas == *w.Replicas
	}
	return (w.Suspend != nil && *w.Suspend) == (live.Suspend != nil && *live.Suspend)
}

// Patch is the merge patch that sets w's recorded value.
func (w SleptWorkload) Patch() string {
	if w.Replicas != nil {
		return fmt.Sprintf(`{"spec":{"replicas":%d}}`, *w.Replicas)
	}
	return fmt.Sprintf(`{"spec":{"suspend":%t}}`, w.Suspend != nil && *w.Suspend)
}
