package verify

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// More classes of docs/security.md that the catalog attempts.
const (
	ClassReferences = "references"
	ClassDefaults   = "defaults"
	ClassStorage    = "storage binding"
	ClassAdmission  = "admission configuration"
)

// LayerProxyConfined is the proxy confining what a tenant wrote to the
// tenant's own (a namespace selector, a name), found by reading back what it
// stored upstream.
const LayerProxyConfined = "kubectl-zoo proxy (confined on the way upstream)"

// LayerProxyCapped is the proxy capping a value whose effect reaches every
// tenant (a PriorityClass's), found by reading back what it stored.
const LayerProxyCapped = "kubectl-zoo proxy (capped on the way upstream)"

var (
	gvrRoleBindings = translate.MustResourceFor(rbacv1.SchemeGroupVersion.WithKind("RoleBinding"))
	gvrClaims       = translate.MustResourceFor(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	gvrVAP          = translate.MustResourceFor(admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicy"))
)

// moreChecks are the checks of references, selectors, defaults, storage
// binding, admission configuration and amplification.
func moreChecks() []Check {
	out := []Check{referenceCheck(), selectorCheck()}
	out = append(out, defaultChecks()...)
	out = append(out, claimCheck(), preboundVolumeCheck(), admissionPolicyCheck(), webhookCheck())
	out = append(out, flowControlChecks()...)
	return append(out, amplificationCheck())
}

// roleBinding is a RoleBinding name of the role ref to the ServiceAccount
// "default" of namespace ns.
func roleBinding(name, ns string, ref rbacv1.RoleRef) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns}}, RoleRef: ref}
}

// ownRole is the attacker's Role that verify made.
var ownRole = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ScratchObject}

// createRoleBinding creates rb in the attacker's namespace with opts.
func createRoleBinding(ctx context.Context, t *Target, rb *rbacv1.RoleBinding, opts metav1.CreateOptions) error {
	_, err := t.Kube.RbacV1().RoleBindings(t.Namespace).Create(ctx, rb, opts)
	return err
}

// roleBindingReadback reads back the RoleBinding name the serve path made
// and judges it by the upstream value of one of its references.
func roleBindingReadback(name, what string, value func(rb *unstructured.Unstructured) string) func(context.Context, *Target) (string, string, error) {
	return func(ctx context.Context, t *Target) (string, string, error) {
		rb, err := readObject(ctx, t, gvrRoleBindings, upstreamNamespace(t), name+t.realSuffix())
		if err != nil {
			return "", "", err
		}
		v := value(rb)
		if !strings.HasPrefix(v, t.Attacker.Prefix()) {
			return "", what + " is " + v, nil
		}
		return LayerProxyNames, what + " is stored as " + v, nil
	}
}

// upstreamNamespace is the attacker's namespace as the upstream names it.
func upstreamNamespace(t *Target) string { return t.Attacker.Prefix() + "default" }

// readObject reads the upstream object gvr name (in ns, "" for a
// cluster-scoped one) as the platform admin.
func readObject(ctx context.Context, t *Target, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	return t.Upstream.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
}

// referenceCheck: a RoleBinding in the attacker's namespace whose subject is
// the victim's ServiceAccount (twin: the attacker's own).
func referenceCheck() Check {
	return Check{ID: "reference/rolebindings.subjects", Class: ClassReferences, Scratch: true,
		Title: "bind the victim's ServiceAccount in the attacker's namespace",
		Twin: func(ctx context.Context, t *Target) error {
			return createRoleBinding(ctx, t, roleBinding("zoo-verify-ref", t.Namespace, ownRole), dryRun)
		},
		Attempt: func(ctx context.Context, t *Target) error {
			return createRoleBinding(ctx, t, roleBinding(t.name("zoo-verify-ref"), t.VictimNamespace, ownRole), t.Write)
		},
		Readback: roleBindingReadback("zoo-verify-ref", "the subject's namespace", func(rb *unstructured.Unstructured) string {
			subjects, _, _ := unstructured.NestedSlice(rb.Object, "subjects")
			if len(subjects) != 1 {
				return fmt.Sprintf("%d subjects", len(subjects))
			}
			ns, _, _ := unstructured.NestedString(subjects[0].(map[string]any), "namespace")
			return ns
		})}
}

// rolePrivilegeCheck (MTB-PL2-CC-TI-1): bind the cluster's cluster-admin
// ClusterRole in the attacker's namespace (twin: the attacker's own Role).
func rolePrivilegeCheck() Check {
	clusterAdmin := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}
	return Check{ID: "MTB-PL2-CC-TI-1", Class: ClassMTB, Title: "Block role privilege escalation (bind cluster-admin)", Scratch: true,
		Twin: func(ctx context.Context, t *Target) error {
			return createRoleBinding(ctx, t, roleBinding("zoo-verify-admin", t.Namespace, ownRole), dryRun)
		},
		Attempt: func(ctx context.Context, t *Target) error {
			return createRoleBinding(ctx, t, roleBinding(t.name("zoo-verify-admin"), t.Namespace, clusterAdmin), t.Write)
		},
		Readback: roleBindingReadback("zoo-verify-admin", "roleRef", func(rb *unstructured.Unstructured) string {
			name, _, _ := unstructured.NestedString(rb.Object, "roleRef", "name")
			return name
		})}
}

// claimCheck: a claim in the attacker's namespace naming the victim's
// volume (twin: the attacker's own).
func claimCheck() Check {
	claim := func(name, volume string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName: ptr.To(""), VolumeName: volume,
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	}
	return Check{ID: "storage/persistentvolumeclaims.spec.volumeName", Class: ClassStorage,
		Title: "claim the victim's volume by name",
		Twin: func(ctx context.Context, t *Target) error {
			_, err := t.Kube.CoreV1().PersistentVolumeClaims(t.Namespace).Create(ctx, claim("zoo-verify-claim", t.Prefix+"data"), dryRun)
			return err
		},
		Attempt: func(ctx context.Context, t *Target) error {
			_, err := t.Kube.CoreV1().PersistentVolumeClaims(t.Namespace).Create(ctx, claim(t.name("zoo-verify-claim"), t.Victim.Prefix()+"data"), t.Write)
			return err
		},
		Readback: func(ctx context.Context, t *Target) (string, string, error) {
			pvc, err := readObject(ctx, t, gvrClaims, upstreamNamespace(t), "zoo-verify-claim"+t.realSuffix())
			if err != nil {
				return "", "", err
			}
			volume, _, _ := unstructured.NestedString(pvc.Object, "spec", "volumeName")
			if !strings.HasPrefix(volume, t.Attacker.Prefix()) {
				return "", "spec.volumeName is " + volume, nil
			}
			return LayerProxyNames, "spec.volumeName is stored as " + volume, nil
		}}
}

// admissionPolicyCheck: a ValidatingAdmissionPolicy of the attacker's that
// would judge every namespace's ConfigMaps. Through the view the proxy
// writes it, confined to the attacker's namespaces; tenant identities hold
// no right on it upstream.
func admissionPolicyCheck() Check {
	return Check{ID: "admission/validatingadmissionpolicies", Class: ClassAdmission,
		Title: "judge every namespace's ConfigMaps with an admission policy",
		Attempt: func(ctx context.Context, t *Target) error {
			_, err := t.Dynamic.Resource(gvrVAP).Create(ctx, admissionPolicy(t), t.Write)
			return err
		},
		Readback: func(ctx context.Context, t *Target) (string, string, error) {
			vap, err := readObject(ctx, t, gvrVAP, "", t.Attacker.Prefix()+"zoo-verify"+t.realSuffix())
			if err != nil {
				return "", "", err
			}
			sel, _, _ := unstructured.NestedMap(vap.Object, "spec", "matchConstraints", "namespaceSelector")
			if confinedTo(sel, t.Attacker) {
				return LayerProxyConfined, fmt.Sprintf("its namespaceSelector is stored as %s In (%s)", translate.TenantLabel, t.Attacker), nil
			}
			return "", fmt.Sprintf("its namespaceSelector is stored as %v", sel), nil
		}}
}

// admissionPolicy is a policy of the attacker's over every namespace's
// ConfigMap creates, that admits them all.
func admissionPolicy(t *Target) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": t.Prefix + t.name("zoo-verify")},
		"spec": map[string]any{"failurePolicy": "Fail",
			"matchConstraints": map[string]any{"resourceRules": []any{configMapRule()}},
			"validations":      []any{map[string]any{"expression": "true"}}},
	}}
	if len(t.Owner) > 0 {
		obj.SetLabels(t.Owner)
	}
	return obj
}
