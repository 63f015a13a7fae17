package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// network is a clientset whose pods run as kwok's do (running, never
// finishing) unless finish says how a connecting pod of a namespace ends.
func network(finish map[string]corev1.PodPhase) *fake.Clientset {
	c := fake.NewClientset()
	c.PrependReactor("get", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		get := a.(clienttesting.GetAction)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: get.GetNamespace(), Name: get.GetName()},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"}}
		if phase, ok := finish[get.GetNamespace()+"/"+get.GetName()]; ok && strings.Contains(get.GetName(), "connect") {
			p.Status.Phase = phase
		}
		return true, p, nil
	})
	c.PrependReactor("create", "services", func(a clienttesting.Action) (bool, runtime.Object, error) {
		svc := a.(clienttesting.CreateAction).GetObject().(*corev1.Service).DeepCopy()
		svc.Spec.ClusterIP = "10.96.0.10"
		return true, svc, nil
	})
	return c
}

// TestNetworkResults: by a pod's address and by a Service's, held only
// when the attacker's pod connects to its own and not to the victim's;
// where pods do not finish, could not run (never held); without
// --data-plane, or without a NetworkPolicy, not applicable.
func TestNetworkResults(t *testing.T) {
	const ns, victim = "zooverify1-default", "zooverify2-default"
	own, cross := ns+"/zoo-verify-connect-own", ns+"/zoo-verify-connect-victim"
	ok, fail := corev1.PodSucceeded, corev1.PodFailed
	for _, tc := range []struct {
		name     string
		finish   map[string]corev1.PodPhase
		off      bool
		pol      string
		pod, svc Status
	}{
		{"isolated", map[string]corev1.PodPhase{own: ok, cross: fail, own + "-svc": ok, cross + "-svc": fail}, false, "", Held, Held},
		{"not isolated", map[string]corev1.PodPhase{own: ok, cross: ok, own + "-svc": ok, cross + "-svc": ok}, false, "", Escaped, Escaped},
		{"not isolated through the Service", map[string]corev1.PodPhase{own: ok, cross: fail, own + "-svc": ok, cross + "-svc": ok}, false, "", Held, Escaped},
		{"no Service routing", map[string]corev1.PodPhase{own: ok, cross: fail, own + "-svc": fail}, false, "", Held, CouldNotRun},
		{"no network at all", map[string]corev1.PodPhase{own: fail, own + "-svc": fail}, false, "", CouldNotRun, CouldNotRun},
		{"pods do not run (kwok)", nil, false, "", CouldNotRun, CouldNotRun},
		{"without --data-plane", nil, true, "", NotApplicable, NotApplicable},
		{"no NetworkPolicy", nil, false, policy.NetworkIsolationNone, NotApplicable, NotApplicable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d *dataPlane
			if !tc.off {
				d = &dataPlane{admin: network(tc.finish), image: "busybox", timeout: 10 * time.Millisecond}
			}
			res := networkResults(context.Background(), d, ns, victim, policy.Policy{NetworkIsolation: tc.pol})
			require.Len(t, res, 2)
			assert.Equal(t, EnvNetworkID, res[0].ID)
			assert.Equal(t, EnvNetworkServiceID, res[1].ID)
			for i, want := range []Status{tc.pod, tc.svc} {
				assert.Equal(t, want, res[i].Status, res[i].Detail)
				if res[i].Status == Held {
					assert.Equal(t, LayerNetworkPolicy, res[i].Layer)
				}
			}
			if tc.finish == nil && !tc.off && tc.pol == "" {
				assert.Contains(t, res[1].Detail, "pods may not run on this cluster")
			}
		})
	}
}
