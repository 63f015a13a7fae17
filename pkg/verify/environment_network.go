package verify

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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

// EnvNetworkServiceID is the ID of the data plane's result through a
// Service: whether the NetworkPolicy holds also for a connection to the
// victim's ClusterIP Service (the traffic the node's proxy rewrites).
const EnvNetworkServiceID = "environment/network-policy-service"

// listener is a listening pod of the data plane and its ClusterIP
// Service.
type listener struct{ podIP, serviceIP string }

// networkResults connect from the attacker's namespace ns to a pod of the
// victim's namespace victimNS, by the pod's address and by its ClusterIP
// Service's (twins: to a pod of ns and its Service): each held when its
// twin connects and the attack does not. Where pods do not run (the twin
// never finishes), they could not run.
func networkResults(ctx context.Context, d *dataPlane, ns, victimNS string, pol policy.Policy) []Result {
	byPod := Result{ID: EnvNetworkID, Class: ClassEnvironment, Title: "the network plugin enforces the NetworkPolicy between tenants (a pod's address)"}
	bySvc := Result{ID: EnvNetworkServiceID, Class: ClassEnvironment, Title: "the network plugin enforces the NetworkPolicy between tenants (a ClusterIP Service's address)"}
	why := ""
	switch {
	case d == nil:
		why = "runs only with --data-plane --image I (two pods, their Services and the connections)"
	case pol.NetworkIsolation == policy.NetworkIsolationNone:
		why = "the tenant's policy sets network isolation \"none\": there is no NetworkPolicy to enforce"
	}
	if why != "" {
		byPod.Status, byPod.Detail = NotApplicable, why
		bySvc.Status, bySvc.Detail = NotApplicable, why
		return []Result{byPod, bySvc}
	}
	own, err := d.listen(ctx, ns, "own")
	if err == nil {
		var victim listener
		if victim, err = d.listen(ctx, victimNS, "victim"); err == nil {
			pod, podErr := d.judgeConnection(ctx, byPod, ns, victimNS, "", own.podIP, victim.podIP)
			if podErr != nil { // pods do not finish: the Service's connections would not either
				bySvc.Status, bySvc.Detail = CouldNotRun, pod.Detail
				return []Result{pod, bySvc}
			}
			svc, _ := d.judgeConnection(ctx, bySvc, ns, victimNS, "-svc", own.serviceIP, victim.serviceIP)
			return []Result{pod, svc}
		}
	}
	for _, r := range []*Result{&byPod, &bySvc} {
		r.Status, r.Detail = CouldNotRun, oneLine(err.Error(), 300)
	}
	return []Result{byPod, bySvc}
}

// judgeConnection connects from ns to ownAddr (the twin) and to
// victimAddr, with connecting pods named after suffix, and judges res by
// them; the error is the twin's, when it could not be made.
func (d *dataPlane) judgeConnection(ctx context.Context, res Result, ns, victimNS, suffix, ownAddr, victimAddr string) (Result, error) {
	own, err := d.dial(ctx, ns, "own"+suffix, ownAddr)
	if err != nil {
		res.Status, res.Detail = CouldNotRun, "a connection within the attacker's namespace (the twin): "+oneLine(err.Error(), 250)
		return res, err
	}
	if !own {
		res.Status, res.Detail = CouldNotRun, "a connection within the attacker's namespace (the twin) failed too"
		return res, nil
	}
	cross, err := d.dial(ctx, ns, "victim"+suffix, victimAddr)
	switch {
	case err != nil:
		res.Status, res.Detail = CouldNotRun, "a connection to the victim's namespace: "+oneLine(err.Error(), 250)
	case cross:
		res.Status, res.Detail = Escaped, "a pod of "+ns+" connected to "+victimAddr+" in "+victimNS
	default:
		res.Status, res.Layer, res.Detail = Held, LayerNetworkPolicy, "a pod of "+ns+" could not connect to "+victimAddr+" in "+victimNS+"; to its own, it could"
	}
	return res, nil
}

// listenLabel labels the listening pods, which their Services select.
const listenLabel = "zoo-verify.example.com/listen"

// listen runs a listening pod in ns and a ClusterIP Service of it, as the
// platform admin, once the pod runs.
func (d *dataPlane) listen(ctx context.Context, ns, name string) (listener, error) {
	var l listener
	pod := d.pod("zoo-verify-listen-"+name, "while true; do nc -l -p "+probePort+" </dev/null; done")
	pod.Labels = map[string]string{listenLabel: name}
	if _, err := d.admin.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return l, fmt.Errorf("create the listening pod: %w", err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "zoo-verify-listen-" + name}, Spec: corev1.ServiceSpec{
		Selector: pod.Labels, Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(8080)}}}}
	created, err := d.admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		return l, fmt.Errorf("create the listening pod's Service: %w", err)
	}
	if l.serviceIP = created.Spec.ClusterIP; l.serviceIP == "" || l.serviceIP == corev1.ClusterIPNone {
		return l, fmt.Errorf("the Service %s/%s has no ClusterIP", ns, svc.Name)
	}
	err = d.await(ctx, ns, pod.Name, func(p *corev1.Pod) bool {
		l.podIP = p.Status.PodIP
		return p.Status.Phase == corev1.PodRunning && l.podIP != ""
	})
	if err != nil {
		return l, fmt.Errorf("the listening pod %s/%s did not run within %s (pods may not run on this cluster): %w", ns, pod.Name, d.timeout, err)
	}
	return l, nil
}

// dial runs a pod in ns that connects to addr, and says whether it
// connected.
func (d *dataPlane) dial(ctx context.Context, ns, name, addr string) (bool, error) {
	client := d.pod("zoo-verify-connect-"+name, "echo x | nc -w 5 "+addr+" "+probePort)
	if _, err := d.admin.CoreV1().Pods(ns).Create(ctx, client, metav1.CreateOptions{}); err != nil {
		return false, fmt.Errorf("create the connecting pod: %w", err)
	}
	var phase corev1.PodPhase
	err := d.await(ctx, ns, client.Name, func(p *corev1.Pod) bool {
		phase = p.Status.Phase
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed
	})
	if err != nil {
		return false, fmt.Errorf("the connecting pod %s/%s did not finish within %s (pods may not run on this cluster; it is %s): %w", ns, client.Name, d.timeout, phase, err)
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
