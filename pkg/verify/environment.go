package verify

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// ClassEnvironment groups what verify finds of the cluster itself, as the
// platform admin: the API server's version, the Pod Security level that
// really holds, whether the admission policies are in force.
const ClassEnvironment = "environment"

// TestedVersion is the Kubernetes minor release kubectl-zoo's tests run on
// (the Makefile's KUBE_VERSION).
const TestedVersion = "v1.34"

// The IDs of the environment's results.
const (
	EnvVersionID     = "environment/version"
	EnvPodSecurityID = "environment/pod-security"
	EnvAdmissionID   = "environment/admission-policies"
)

// LayerZooPolicies is the layer of the admission policies' result: the
// policies of kubectl-zoo (zoo-tenant...) refused attempts.
const LayerZooPolicies = "ValidatingAdmissionPolicy"

// environmentResults are the environment section: the API server's version
// against TestedVersion, the Pod Security level the attacker's namespace ns
// (upstream name) enforces against pol's, from results whether
// kubectl-zoo's admission policies refused anything, and with a data plane
// d (else nil) whether the network plugin isolates ns from victimNS, by a
// pod's address and a Service's; and which admission plugins the API
// server runs (pluginResults).
func environmentResults(ctx context.Context, admin kubernetes.Interface, ns, victimNS string, pol policy.Policy, results []Result, d *dataPlane) []Result {
	env := []Result{versionResult(admin), podSecurityResult(ctx, admin, ns, pol), admissionResult(results)}
	env = append(env, pluginResults(ctx, admin, pol, env)...)
	return append(env, networkResults(ctx, d, ns, victimNS, pol)...)
}

// versionResult compares the API server's version with TestedVersion.
func versionResult(admin kubernetes.Interface) Result {
	res := Result{ID: EnvVersionID, Class: ClassEnvironment, Title: "the API server's version against the tested " + TestedVersion + ".x"}
	info, err := admin.Discovery().ServerVersion()
	if err != nil {
		res.Status, res.Detail = CouldNotRun, "read the API server's version: "+oneLine(err.Error(), 250)
		return res
	}
	minor := "v" + info.Major + "." + strings.TrimSuffix(info.Minor, "+")
	if minor != TestedVersion {
		res.Status, res.Detail = CouldNotRun, fmt.Sprintf("the API server is %s; kubectl-zoo is tested on %s.x, its classification of kinds and fields is not proven on this release", info.GitVersion, TestedVersion)
		return res
	}
	res.Status, res.Layer, res.Detail = Held, "tested release", info.GitVersion
	return res
}

// levelPods are, per Pod Security level, a pod that needs that level: the
// level and every one below it admit it, those above refuse it.
var levelPods = []struct {
	level string
	pod   func() *corev1.Pod
}{
	{"privileged", func() *corev1.Pod { p := harmlessPod(); p.Spec.HostPID = true; return p }},
	{"baseline", func() *corev1.Pod {
		p := harmlessPod()
		p.Spec.SecurityContext.RunAsNonRoot, p.Spec.SecurityContext.RunAsUser = nil, ptr.To[int64](0)
		return p
	}},
	{"restricted", harmlessPod},
}

// podSecurityResult makes (dry run, as the platform admin) a pod per level
// in ns, from the most permissive: the first one admitted is the level ns
// really enforces, which must be at least pol's.
func podSecurityResult(ctx context.Context, admin kubernetes.Interface, ns string, pol policy.Policy) Result {
	res := Result{ID: EnvPodSecurityID, Class: ClassEnvironment, Title: "the Pod Security level the attacker's namespace enforces"}
	for _, lp := range levelPods {
		_, err := admin.CoreV1().Pods(ns).Create(ctx, lp.pod(), dryRun)
		if err != nil && !rePodSecurity.MatchString(err.Error()) {
			res.Status, res.Detail = CouldNotRun, fmt.Sprintf("a pod of level %s: %s", lp.level, oneLine(err.Error(), 250))
			return res
		}
		if err != nil {
			continue
		}
		if podSecurityRank[lp.level] < podSecurityRank[pol.PodSecurity] {
			res.Status, res.Detail = Escaped, fmt.Sprintf("%s admits a pod only Pod Security %q allows; the tenant's policy says %q", ns, lp.level, pol.PodSecurity)
			return res
		}
		res.Status, res.Layer, res.Detail = Held, "Pod Security ("+lp.level+")", fmt.Sprintf("%s enforces %q; the tenant's policy says %q", ns, lp.level, pol.PodSecurity)
		return res
	}
	res.Status, res.Detail = CouldNotRun, "Pod Security refused even a pod every level admits"
	return res
}

// admissionResult says whether kubectl-zoo's admission policies are in
// force, by the attempts they refused.
func admissionResult(results []Result) Result {
	res := Result{ID: EnvAdmissionID, Class: ClassEnvironment, Title: "kubectl-zoo's ValidatingAdmissionPolicies are in force"}
	refused, direct := 0, 0
	for _, r := range results {
		if strings.HasPrefix(r.Layer, "admission: zoo-") {
			refused++
		}
		if r.Path == PathIdentity && r.Status != NotApplicable {
			direct++
		}
	}
	switch {
	case refused > 0:
		res.Status, res.Layer, res.Detail = Held, LayerZooPolicies, fmt.Sprintf("they refused %d attempts", refused)
	case direct > 0:
		res.Status, res.Detail = Escaped, fmt.Sprintf("none of %d attempts of the tenant identity was refused by them: they are not in force (the API server's ValidatingAdmissionPolicy plugin, their bindings)", direct)
	default:
		res.Status, res.Detail = CouldNotRun, "no attempt was made directly upstream, where they would refuse it"
	}
	return res
}
