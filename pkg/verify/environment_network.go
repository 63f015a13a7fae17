package verify

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// EnvNetworkID is the ID of the data plane's result: whether the network
// plugin enforces the NetworkPolicy that isolates a tenant's pods.
const EnvNetworkID = "environment/network-policy"

// LayerNetworkPolicy is the layer of a connection the network plugin
// dropped.
const LayerNetworkPolicy = "NetworkPolicy (the network plugin)"

// probePort is the port the listening pods listen on.
const probePort = "8080"

// dataPlane runs pods of an image with a shell and nc (busybox's) in the
// scratch tenants' namespaces, as the platform admin.
type dataPlane struct {
	admin kubernetes.Interface
	image string
	// timeout bounds the wait for a pod to run or finish.
	timeout time.Duration
}

// networkResult connects from the attacker's namespace ns to a pod of the
// victim's namespace victimNS (twin: to a pod of ns): held when the twin
// connects and the attack does not. Where pods do not run (the twin never
// finishes), it could not run.
func networkResult(ctx context.Context, d *dataPlane, ns, victimNS string, pol policy.Policy) Result {
	res := Result{ID: EnvNetworkID, Class: ClassEnvironment, Title: "the network plugin enforces the NetworkPolicy between tenants"}
	switch {
	case d == nil:
		res.Status, res.Detail = NotApplicable, "runs only with --data-plane --image I (two pods and a connection)"
		return res
	case pol.NetworkIsolation == policy.NetworkIsolationNone:
		res.Status, res.Detail = NotApplicable, "the tenant's policy sets network isolation \"none\": there is no NetworkPolicy to enforce"
		return res
	}
	own, err := d.connect(ctx, ns, ns, "own")
	if err != nil {
		res.Status, res.Detail = CouldNotRun, "a connection within the attacker's namespace (the twin): "+oneLine(err.Error(), 250)
		return res
	}
	if !own {
		res.Status, res.Detail = CouldNotRun, "a connection within the attacker's namespace (the twin) failed too"
		return res
	}
	cross, err := d.connect(ctx, ns, victimNS, "victim")
	switch {
	case err != nil:
		res.Status, res.Detail = CouldNotRun, "a connection to the victim's namespace: "+oneLine(err.Error(), 250)
	case cross:
		res.Status, res.Detail = Escaped, "a pod of "+ns+" connected to a pod of "+victimNS
	default:
		res.Status, res.Layer, res.Detail = Held, LayerNetworkPolicy, "a pod of "+ns+" could not connect to a pod of "+victimNS+"; one of its own could"
	}
	return res
}

// connect runs a listening pod in toNS and a pod in fromNS that connects
// to it, and says whether it connected.
func (d *dataPlane) connect(ctx context.Context, fromNS, toNS, name string) (bool, error) {
	listen := d.pod("zoo-verify-listen-"+name, "while true; do nc -l -p "+probePort+" </dev/null; done")
	if _, err := d.admin.CoreV1().Pods(toNS).Create(ctx, listen, metav1.CreateOptions{}); err != nil {
		return false, fmt.Errorf("create the listening pod: %w", err)
	}
	var ip string
	err := d.await(ctx, toNS, listen.Name, func(p *corev1.Pod) bool { ip = p.Status.PodIP; return p.Status.Phase == corev1.PodRunning && ip != "" })
	if err != nil {
		return false, fmt.Errorf("the listening pod %s/%s did not run within %s (pods may not run on this cluster): %w", toNS, listen.Name, d.timeout, err)
	}
	client := d.pod("zoo-verify-connect-"+name, "echo x | nc -w 5 "+ip+" "+probePort)
	if _, err := d.admin.CoreV1().Pods(fromNS).Create(ctx, client, metav1.CreateOptions{}); err != nil {
		return false, fmt.Errorf("create the connecting pod: %w", err)
	}
	var phase corev1.PodPhase
	err = d.await(ctx, fromNS, client.Name, func(p *corev1.Pod) bool {
		phase = p.Status.Phase
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed
	})
	if err != nil {
		return false, fmt.Errorf("the connecting pod %s/%s did not finish within %s (pods may not run on this cluster; it is %s): %w", fromNS, client.Name, d.timeout, phase, err)
	}
	return phase == corev1.PodSucceeded, nil
}

// await polls the pod until done says so, for at most d.timeout.
func (d *dataPlane) await(ctx context.Context, ns, name string, done func(*corev1.Pod) bool) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, d.timeout, true, func(ctx context.Context) (bool, error) {
		p, err := d.admin.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return done(p), nil
	})
}

// pod is a pod of d's image that runs script with sh, as harmless as the
// pod checks' twin (every Pod Security level admits it), never restarted.
func (d *dataPlane) pod(name, script string) *corev1.Pod {
	p := harmlessPod()
	p.Name, p.Spec.RestartPolicy = name, corev1.RestartPolicyNever
	p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
	c := container(p)
	c.Image, c.Command = d.image, []string{"sh", "-c", script}
	return p
}
