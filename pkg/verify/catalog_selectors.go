package verify

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ClassSelectors is the class of label selectors the cluster evaluates.
const ClassSelectors = "selectors"

var gvrPodTemplates = translate.MustResourceFor(corev1.SchemeGroupVersion.WithKind("PodTemplate"))

// selectorCheck: a pod affinity term whose namespaceSelector selects every
// namespace of the cluster (the scheduler would weigh the victim's pods),
// on a PodTemplate, which runs nothing (twin: a term naming the attacker's
// own namespace).
func selectorCheck() Check {
	template := func(name string, term corev1.PodAffinityTerm) *corev1.PodTemplate {
		pod := harmlessPod()
		pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}}}}
		return &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: name}, Template: corev1.PodTemplateSpec{Spec: pod.Spec}}
	}
	term := corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "zoo-verify"}}}
	return Check{ID: "selector/podtemplates.affinity.namespaceSelector", Class: ClassSelectors,
		Title: "weigh every namespace's pods with a pod affinity term",
		Twin: func(ctx context.Context, t *Target) error {
			own := term
			own.Namespaces = []string{t.Namespace}
			_, err := t.Kube.CoreV1().PodTemplates(t.Namespace).Create(ctx, template("zoo-verify-sel", own), dryRun)
			return err
		},
		Attempt: func(ctx context.Context, t *Target) error {
			every := term
			every.NamespaceSelector = &metav1.LabelSelector{}
			_, err := t.Kube.CoreV1().PodTemplates(t.Namespace).Create(ctx, template(t.name("zoo-verify-sel"), every), t.Write)
			return err
		},
		Readback: func(ctx context.Context, t *Target) (string, string, error) {
			pt, err := readObject(ctx, t, gvrPodTemplates, upstreamNamespace(t), "zoo-verify-sel"+t.realSuffix())
			if err != nil {
				return "", "", err
			}
			terms, _, _ := unstructured.NestedSlice(pt.Object, "template", "spec", "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
			if len(terms) != 1 {
				return "", "", fmt.Errorf("the PodTemplate holds %d affinity terms upstream", len(terms))
			}
			sel, _, _ := unstructured.NestedMap(terms[0].(map[string]any), "podAffinityTerm", "namespaceSelector")
			if confinedTo(sel, t.Attacker) {
				return LayerProxyConfined, fmt.Sprintf("its namespaceSelector is stored as %s In (%s)", translate.TenantLabel, t.Attacker), nil
			}
			return "", fmt.Sprintf("its namespaceSelector is stored as %v", sel), nil
		}}
}

// confinedTo says the label selector sel requires the tenant label of t:
// matchLabels, or a matchExpressions entry In exactly t.
func confinedTo(sel map[string]any, t translate.Tenant) bool {
	if v, ok, _ := unstructured.NestedString(sel, "matchLabels", translate.TenantLabel); ok && v == t.Name() {
		return true
	}
	exprs, _, _ := unstructured.NestedSlice(sel, "matchExpressions")
	for _, e := range exprs {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		values, _, _ := unstructured.NestedStringSlice(m, "values")
		if m["key"] == translate.TenantLabel && m["operator"] == "In" && slices.Equal(values, []string{t.Name()}) {
			return true
		}
	}
	return false
}
