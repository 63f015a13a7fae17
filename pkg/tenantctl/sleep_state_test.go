package tenantctl

import (
	"testing"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func deploy(name string, uid string, replicas int32) tenantapi.SleptWorkload {
	return tenantapi.SleptWorkload{Resource: "deployments", Namespace: "acme-default", Name: name, UID: k8stypes.UID(uid), Replicas: ptr.To(replicas)}
}

func cron(name string, suspend bool) tenantapi.SleptWorkload {
	return tenantapi.SleptWorkload{Resource: "cronjobs", Namespace: "acme-default", Name: name, UID: k8stypes.UID("c-" + name), Suspend: ptr.To(suspend)}
}

func TestSleepWith(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Hour))
	for _, tc := range []struct {
		name      string
		cur       *tenantapi.SleepState
		live      []tenantapi.SleptWorkload
		want      []tenantapi.SleptWorkload
		wantSince metav1.Time
	}{{
		name: "first sleep records what runs, not what is already stopped",
		live: []tenantapi.SleptWorkload{deploy("web", "1", 3), deploy("idle", "2", 0), cron("nightly", false), cron("off", true)},
		want: []tenantapi.SleptWorkload{cron("nightly", false), deploy("web", "1", 3)}, wantSince: t1,
	}, {
		name: "asleep: a record is kept over the 0 live shows, a new workload is added",
		cur:  &tenantapi.SleepState{State: tenantapi.SleepStateAsleep, Converged: true, Since: t0, Workloads: []tenantapi.SleptWorkload{deploy("web", "1", 3)}},
		live: []tenantapi.SleptWorkload{deploy("web", "1", 0), deploy("new", "3", 2)},
		want: []tenantapi.SleptWorkload{deploy("new", "3", 2), deploy("web", "1", 3)}, wantSince: t0,
	}, {
		name: "asleep: a count the tenant raised meanwhile does not replace the record",
		cur:  &tenantapi.SleepState{State: tenantapi.SleepStateAsleep, Converged: true, Since: t0, Workloads: []tenantapi.SleptWorkload{deploy("web", "1", 3)}},
		live: []tenantapi.SleptWorkload{deploy("web", "1", 50)},
		want: []tenantapi.SleptWorkload{deploy("web", "1", 3)}, wantSince: t0,
	}, {
		name: "a wake not yet converged: the records still hold",
		cur:  &tenantapi.SleepState{State: tenantapi.SleepStateAwake, Since: t0, Workloads: []tenantapi.SleptWorkload{deploy("web", "1", 3)}},
		live: []tenantapi.SleptWorkload{deploy("web", "1", 0)},
		want: []tenantapi.SleptWorkload{deploy("web", "1", 3)}, wantSince: t1,
	}, {
		name: "awake and converged: live is the truth",
		cur:  &tenantapi.SleepState{State: tenantapi.SleepStateAwake, Converged: true, Since: t0, Workloads: []tenantapi.SleptWorkload{deploy("web", "1", 3)}},
		live: []tenantapi.SleptWorkload{deploy("web", "1", 5)},
		want: []tenantapi.SleptWorkload{deploy("web", "1", 5)}, wantSince: t1,
	}, {
		name: "a workload recreated under its name is recorded anew",
		cur:  &tenantapi.SleepState{State: tenantapi.SleepStateAsleep, Since: t0, Workloads: []tenantapi.SleptWorkload{deploy("web", "1", 3), deploy("gone", "4", 1)}},
		live: []tenantapi.SleptWorkload{deploy("web", "9", 0)},
		want: []tenantapi.SleptWorkload{deploy("gone", "4", 1)}, wantSince: t0,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cur.SleepWith(tc.live, t1, tenantapi.SleptByServer)
			assert.Equal(t, tenantapi.SleptByServer, got.By)
			assert.Equal(t, tenantapi.SleepStateAsleep, got.State)
			assert.False(t, got.Converged)
			assert.Equal(t, tc.wantSince, got.Since)
			assert.Equal(t, tc.want, got.Workloads)
		})
	}
}

func TestSleepTargets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w      tenantapi.SleptWorkload
		state  string
		patch  string
		live   tenantapi.SleptWorkload
		equals bool
	}{
		{"asleep scales to 0", deploy("web", "1", 3), tenantapi.SleepStateAsleep, `{"spec":{"replicas":0}}`, deploy("web", "1", 3), false},
		{"asleep and already 0", deploy("web", "1", 3), tenantapi.SleepStateAsleep, `{"spec":{"replicas":0}}`, deploy("web", "1", 0), true},
		{"awake restores", deploy("web", "1", 3), tenantapi.SleepStateAwake, `{"spec":{"replicas":3}}`, deploy("web", "1", 0), false},
		{"asleep suspends", cron("nightly", false), tenantapi.SleepStateAsleep, `{"spec":{"suspend":true}}`, cron("nightly", false), false},
		{"awake unsuspends", cron("nightly", false), tenantapi.SleepStateAwake, `{"spec":{"suspend":false}}`, cron("nightly", false), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.w.Patch()
			want := tc.w.Target(tc.state)
			assert.Equal(t, tc.patch, want.Patch())
			assert.Equal(t, tc.equals, want.Matches(tc.live))
			assert.Equal(t, before, tc.w.Patch(), "the record is not changed")
		})
	}
}

func TestSleepSummary(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		state *tenantapi.SleepState
		want  string
	}{
		{nil, "awake"},
		{&tenantapi.SleepState{State: tenantapi.SleepStateAwake, Converged: true}, "awake"},
		{&tenantapi.SleepState{State: tenantapi.SleepStateAwake}, "waking"},
		{&tenantapi.SleepState{State: tenantapi.SleepStateAsleep}, "falling asleep"},
		{&tenantapi.SleepState{State: tenantapi.SleepStateAsleep, Converged: true, Since: metav1.NewTime(now.Add(-90 * time.Minute))}, "asleep 90m"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			rec := &tenantapi.Tenant{Status: tenantapi.TenantStatus{Sleep: tc.state}}
			assert.Equal(t, tc.want, sleepSummary(rec, now))
			assert.Equal(t, tc.state != nil && tc.state.State == tenantapi.SleepStateAsleep, rec.Asleep())
		})
	}
}

func TestSleptWorkload(t *testing.T) {
	obj := func(kind string, spec map[string]any, owner string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "spec": spec,
			"metadata": map[string]any{"name": "x", "namespace": "acme-default", "uid": "u"}}}
		if owner != "" {
			u.SetOwnerReferences([]metav1.OwnerReference{{Kind: owner, Name: "o", UID: "o", Controller: ptr.To(true)}})
		}
		return u
	}
	for _, tc := range []struct {
		name string
		res  string
		u    *unstructured.Unstructured
		ok   bool
		want tenantapi.SleptWorkload
	}{
		{"deployment", "deployments", obj("Deployment", map[string]any{"replicas": int64(2)}, ""), true,
			tenantapi.SleptWorkload{Resource: "deployments", Namespace: "acme-default", Name: "x", UID: "u", Replicas: ptr.To[int32](2)}},
		{"a ReplicaSet of a Deployment is left to it", "replicasets", obj("ReplicaSet", map[string]any{"replicas": int64(2)}, "Deployment"), false, tenantapi.SleptWorkload{}},
		{"a ReplicaSet of something else is scaled", "replicasets", obj("ReplicaSet", map[string]any{}, "Other"), true,
			tenantapi.SleptWorkload{Resource: "replicasets", Namespace: "acme-default", Name: "x", UID: "u", Replicas: ptr.To[int32](1)}},
		{"cronjob", "cronjobs", obj("CronJob", map[string]any{"suspend": true}, ""), true,
			tenantapi.SleptWorkload{Resource: "cronjobs", Namespace: "acme-default", Name: "x", UID: "u", Suspend: ptr.To(true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := sleptWorkload(tc.res, tc.u)
			require.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

func TestJobFinished(t *testing.T) {
	job := func(conds ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conds}}}
	}
	assert.False(t, jobFinished(job()))
	assert.False(t, jobFinished(job(map[string]any{"type": "Complete", "status": "False"})))
	assert.True(t, jobFinished(job(map[string]any{"type": "Complete", "status": "True"})))
	assert.True(t, jobFinished(job(map[string]any{"type": "Failed", "status": "True"})))
}
