package verify

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ClassMTB is the class of the Multi-Tenancy Benchmarks' checks.
const ClassMTB = "multi-tenancy benchmarks"

// probeKey is a key in no platform's domain: tenants may write it.
const probeKey = "zoo-verify.example.com/probe"

var (
	gvrAPIService    = translate.MustResourceFor(schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"})
	gvrNetworkPolicy = translate.MustResourceFor(networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"))
	gvrQuota         = translate.MustResourceFor(corev1.SchemeGroupVersion.WithKind("ResourceQuota"))
)

// annotateProbe is a merge patch that sets probeKey.
var annotateProbe = []byte(`{"metadata":{"annotations":{"` + probeKey + `":"x"}}}`)

var patchDryRun = metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}

// mtbChecks are the Multi-Tenancy Benchmarks' profile level 1 checks
// (github.com/kubernetes-retired/multi-tenancy, benchmarks/kubectl-mtb), by
// their published IDs. The benchmarks publish MTB-PL1-BC-HI-1 for both
// host path volumes and NodePort Services.
func mtbChecks() []Check {
	out := []Check{
		{ID: "MTB-PL1-CC-CPI-1", Class: ClassMTB, Title: "Block access to cluster resources (register an APIService)",
			Attempt: func(ctx context.Context, t *Target) error {
				_, err := t.Dynamic.Resource(gvrAPIService).Create(ctx, apiService(t), dryRun)
				return err
			}},
		{ID: "MTB-PL1-CC-TI-2", Class: ClassMTB, Title: "Block access to other tenant resources (read the victim's ConfigMap)",
			NotFoundHeld: true,
			Attempt: func(ctx context.Context, t *Target) error {
				_, err := t.Kube.CoreV1().ConfigMaps(t.VictimNamespace).Get(ctx, t.VictimConfigMap, metav1.GetOptions{})
				return err
			}},
		{ID: "MTB-PL1-CC-TI-1", Class: ClassMTB, Title: "Block modification of resource quotas (raise the policy's quota)",
			Attempt: func(ctx context.Context, t *Target) error {
				_, err := t.Dynamic.Resource(gvrQuota).Namespace(t.Namespace).Patch(ctx, platformobj.PolicyObjectName, types.MergePatchType,
					[]byte(fmt.Sprintf(`{"spec":{"hard":{%q:"1000000"}}}`, corev1.ResourcePods)), patchDryRun)
				return err
			}},
		{ID: "MTB-PL1-BC-CPI-2", Class: ClassMTB, Title: "Block multitenant resources (annotate the policy's NetworkPolicy)", Scratch: true,
			NotApplicable: func(p policy.Policy) string {
				if p.NetworkIsolation == policy.NetworkIsolationNone {
					return "the tenant's policy sets network isolation none: kubectl-zoo makes no NetworkPolicy to protect"
				}
				return ""
			},
			Twin: func(ctx context.Context, t *Target) error {
				_, err := t.Kube.CoreV1().Services(t.Namespace).Patch(ctx, t.Service, types.MergePatchType, annotateProbe, patchDryRun)
				return err
			},
			Attempt: func(ctx context.Context, t *Target) error {
				_, err := t.Dynamic.Resource(gvrNetworkPolicy).Namespace(t.Namespace).Patch(ctx, platformobj.PolicyObjectName, types.MergePatchType, annotateProbe, patchDryRun)
				return err
			}},
	}
	out = append(out, podChecks()...)
	out = append(out, rolePrivilegeCheck())
	return append(out, Check{ID: "MTB-PL1-BC-HI-1", Class: ClassMTB, Title: "Block use of NodePort services",
		NotApplicable: func(policy.Policy) string {
			return "kubectl-zoo does not refuse NodePort Services and a tenant's policy has no setting for them (docs/verify.md)"
		}}, Check{ID: "MTB-PL1-CC-DI-1", Class: ClassMTB, Title: "Require always imagePullPolicy",
		NotApplicable: func(policy.Policy) string {
			return "kubectl-zoo does not make pods pull their images always (the AlwaysPullImages admission plugin is the platform's choice)"
		}})
}

// apiService is an APIService that would serve a group from the attacker's
// Service.
func apiService(t *Target) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.zoo-verify.example.com"},
		"spec": map[string]any{"group": "zoo-verify.example.com", "version": "v1", "groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
			"service": map[string]any{"namespace": t.Namespace, "name": t.Service}},
	}}
}

// probeService is a Service of the attacker's named name with labels.
func probeService(name string, labels map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
}
