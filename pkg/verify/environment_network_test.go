package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
	return c
}

// TestNetworkResult: held only when the attacker's pod connects to its own
// and not to the victim's; where pods do not finish, could not run (never
// held); without --data-plane, or without a NetworkPolicy, not applicable.
func TestNetworkResult(t *testing.T) {
	const ns, victim = "zooverify1-default", "zooverify2-default"
	own, cross := ns+"/zoo-verify-connect-own", ns+"/zoo-verify-connect-victim"
	for _, tc := range []struct {
		name   string
		finish map[string]corev1.PodPhase
		off    bool
		pol    string
		want   Status
	}{
		{"isolated", map[string]corev1.PodPhase{own: corev1.PodSucceeded, cross: corev1.PodFailed}, false, "", Held},
		{"not isolated", map[string]corev1.PodPhase{own: corev1.PodSucceeded, cross: corev1.PodSucceeded}, false, "", Escaped},
		{"no network at all", map[string]corev1.PodPhase{own: corev1.PodFailed}, false, "", CouldNotRun},
		{"pods do not run (kwok)", nil, false, "", CouldNotRun},
		{"without --data-plane", nil, true, "", NotApplicable},
		{"no NetworkPolicy", nil, false, policy.NetworkIsolationNone, NotApplicable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d *dataPlane
			if !tc.off {
				d = &dataPlane{admin: network(tc.finish), image: "busybox", timeout: 10 * time.Millisecond}
			}
			res := networkResult(context.Background(), d, ns, victim, policy.Policy{NetworkIsolation: tc.pol})
			assert.Equal(t, tc.want, res.Status, res.Detail)
			if res.Status == Held {
				assert.Equal(t, LayerNetworkPolicy, res.Layer)
			}
		})
	}
}
