package verify

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// dryRun are the options of every write verify makes: nothing is stored.
var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// Pod Security levels, in increasing order of what they refuse.
var podSecurityRank = map[string]int{"privileged": 0, "baseline": 1, "restricted": 2}

// harmlessPod is a pod that every Pod Security level admits.
func harmlessPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "zoo-verify-pod"},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		},
	}
}

// podCheck is a check that creates (dry run) a pod harmlessPod made
// hostile by mutate, which Pod Security level minLevel and above refuse;
// its twin is harmlessPod itself.
func podCheck(id, title, minLevel string, mutate func(*corev1.Pod)) Check {
	create := func(ctx context.Context, t *Target, pod *corev1.Pod) error {
		_, err := t.Kube.CoreV1().Pods(t.Namespace).Create(ctx, pod, dryRun)
		return err
	}
	return Check{
		ID: id, Class: ClassMTB, Title: title,
		NotApplicable: func(p policy.Policy) string {
			if podSecurityRank[p.PodSecurity] < podSecurityRank[minLevel] {
				return fmt.Sprintf("the tenant's policy sets Pod Security %q, which allows it (%s and above refuse it)", p.PodSecurity, minLevel)
			}
			return ""
		},
		Twin: func(ctx context.Context, t *Target) error { return create(ctx, t, harmlessPod()) },
		Attempt: func(ctx context.Context, t *Target) error {
			pod := harmlessPod()
			mutate(pod)
			return create(ctx, t, pod)
		},
	}
}

// container is the pod's one container.
func container(p *corev1.Pod) *corev1.Container { return &p.Spec.Containers[0] }

// podChecks are the Multi-Tenancy Benchmarks' checks of pod specs.
func podChecks() []Check {
	return []Check{
		podCheck("MTB-PL1-BC-CPI-5", "Block privileged containers", "baseline", func(p *corev1.Pod) {
			container(p).SecurityContext.Privileged = ptr.To(true)
			container(p).SecurityContext.AllowPrivilegeEscalation = nil
		}),
		podCheck("MTB-PL1-BC-CPI-6", "Block privilege escalation", "restricted", func(p *corev1.Pod) {
			container(p).SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		}),
		podCheck("MTB-PL1-BC-CPI-3", "Block add capabilities (SYS_ADMIN)", "baseline", func(p *corev1.Pod) {
			container(p).SecurityContext.Capabilities.Add = []corev1.Capability{"SYS_ADMIN"}
		}),
		podCheck("MTB-PL1-BC-CPI-4", "Require run as non-root user", "restricted", func(p *corev1.Pod) {
			p.Spec.SecurityContext.RunAsNonRoot, p.Spec.SecurityContext.RunAsUser = nil, ptr.To[int64](0)
		}),
		podCheck("MTB-PL1-BC-HI-1", "Block use of host path volumes", "baseline", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc"}}}}
			container(p).VolumeMounts = []corev1.VolumeMount{{Name: "host", MountPath: "/host"}}
		}),
		podCheck("MTB-PL1-BC-HI-3", "Block use of host networking and ports", "baseline", func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			container(p).Ports = []corev1.ContainerPort{{ContainerPort: 10250, HostPort: 10250}}
		}),
		podCheck("MTB-PL1-BC-HI-4", "Block use of host PID", "baseline", func(p *corev1.Pod) { p.Spec.HostPID = true }),
		podCheck("MTB-PL1-BC-HI-5", "Block use of host IPC", "baseline", func(p *corev1.Pod) { p.Spec.HostIPC = true }),
	}
}
