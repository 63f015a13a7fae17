package verify

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ClassFlowControl is the class of the API server's fairness between
// tenants (docs/security.md's amplification).
const ClassFlowControl = "flow control"

var (
	gvrPV                = translate.MustResourceFor(corev1.SchemeGroupVersion.WithKind("PersistentVolume"))
	gvrValidatingWebhook = translate.MustResourceFor(admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"))
	gvrFlowSchema        = translate.MustResourceFor(flowcontrolv1.SchemeGroupVersion.WithKind("FlowSchema"))
	gvrPriorityLevel     = translate.MustResourceFor(flowcontrolv1.SchemeGroupVersion.WithKind("PriorityLevelConfiguration"))
)

// preboundVolumeCheck: a volume of the attacker's pre-bound (claimRef) to
// a claim in the victim's namespace, which would take the victim's claim
// (twin: the volume unbound). Through the view the proxy maps the claim's
// namespace into the attacker's (read back).
func preboundVolumeCheck() Check {
	base := refusedBases[gvrPV.GroupResource()]
	volume := func(t *Target, name string, claimNS string) *unstructured.Unstructured {
		pv := base.object(t)
		pv.SetName(t.Prefix + name)
		if claimNS != "" {
			pv.Object["spec"].(map[string]any)["claimRef"] = map[string]any{"namespace": claimNS, "name": ScratchObject}
		}
		return pv
	}
	return Check{ID: "storage/persistentvolumes.spec.claimRef", Class: ClassStorage, TwinRBAC: true, NotApplicable: base.notApplicable,
		Title: "pre-bind a volume to a claim of the victim's", Paths: []Path{PathServe, PathIdentity, PathServer},
		Twin: func(ctx context.Context, t *Target) error {
			_, err := t.Dynamic.Resource(gvrPV).Create(ctx, volume(t, "zoo-verify-bound", ""), dryRun)
			return err
		},
		Attempt: func(ctx context.Context, t *Target) error {
			_, err := t.Dynamic.Resource(gvrPV).Create(ctx, volume(t, t.name("zoo-verify-bound"), t.VictimNamespace), t.Write)
			return err
		},
		Readback: func(ctx context.Context, t *Target) (string, string, error) {
			pv, err := readObject(ctx, t, gvrPV, "", t.Attacker.Prefix()+"zoo-verify-bound"+t.realSuffix())
			if err != nil {
				return "", "", err
			}
			ns, _, _ := unstructured.NestedString(pv.Object, "spec", "claimRef", "namespace")
			if !t.Attacker.Owns(ns) {
				return "", "spec.claimRef.namespace is " + ns, nil
			}
			return LayerProxyNames, "spec.claimRef.namespace is stored as " + ns, nil
		}}
}

// webhookCheck: a validating webhook of the attacker's over every
// namespace's ConfigMaps (its namespaceSelector selects every namespace),
// never called (failurePolicy Ignore, an impossible object selector).
// Through the view the proxy writes it, confined to the attacker's
// namespaces; tenant identities hold no right on it upstream.
func webhookCheck() Check {
	return Check{ID: "admission/validatingwebhookconfigurations", Class: ClassAdmission,
		Title: "call a webhook of the attacker's for every namespace's ConfigMaps",
		Attempt: func(ctx context.Context, t *Target) error {
			wh := webhookConfiguration(t, "ValidatingWebhookConfiguration", t.name("zoo-verify-every"))
			for _, w := range wh.Object["webhooks"].([]any) {
				w.(map[string]any)["namespaceSelector"] = map[string]any{}
			}
			_, err := t.Dynamic.Resource(gvrValidatingWebhook).Create(ctx, wh, t.Write)
			return err
		},
		Readback: func(ctx context.Context, t *Target) (string, string, error) {
			wh, err := readObject(ctx, t, gvrValidatingWebhook, "", t.Attacker.Prefix()+"zoo-verify-every"+t.realSuffix())
			if err != nil {
				return "", "", err
			}
			for _, sel := range fieldValues(wh.Object, []string{"webhooks[]", "namespaceSelector"}) {
				if m, _ := sel.(map[string]any); !confinedTo(m, t.Attacker) {
					return "", fmt.Sprintf("a webhook's namespaceSelector is stored as %v", sel), nil
				}
			}
			return LayerProxyConfined, fmt.Sprintf("its namespaceSelector is stored as %s In (%s)", translate.TenantLabel, t.Attacker), nil
		}}
}

// flowControlChecks: a FlowSchema of the attacker's ahead of the
// cluster's own (twin: at the tenants' lowest precedence), and an Exempt
// priority level (twin: a limited one), which would take the API server's
// fairness from every tenant. Tenant identities hold no right on them
// upstream.
func flowControlChecks() []Check {
	flowSchema := func(t *Target, precedence int64) *unstructured.Unstructured {
		return object("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "", t.Prefix+"zoo-verify-flow", t.Owner, map[string]any{"spec": map[string]any{
			"matchingPrecedence": precedence, "priorityLevelConfiguration": map[string]any{"name": t.Prefix + "zoo-verify-flow"},
			"rules": []any{map[string]any{"subjects": []any{map[string]any{"kind": "Group", "group": map[string]any{"name": "system:authenticated"}}},
				"nonResourceRules": []any{map[string]any{"verbs": []any{"get"}, "nonResourceURLs": []any{"/zoo-verify"}}}}}}})
	}
	level := func(t *Target, spec map[string]any) *unstructured.Unstructured {
		return object("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", "", t.Prefix+"zoo-verify-flow", t.Owner, map[string]any{"spec": spec})
	}
	create := func(ctx context.Context, t *Target, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error {
		_, err := t.Dynamic.Resource(gvr).Create(ctx, obj, dryRun)
		return err
	}
	paths := []Path{PathServe, PathIdentity, PathServer} // a ServiceAccount holds no right on cluster-scoped kinds
	return []Check{
		{ID: "flowcontrol/flowschemas.spec.matchingPrecedence", Class: ClassFlowControl, TwinRBAC: true, Paths: paths,
			Title: "match requests ahead of the cluster's own FlowSchemas",
			Twin: func(ctx context.Context, t *Target) error {
				return create(ctx, t, gvrFlowSchema, flowSchema(t, translate.TenantMinMatchingPrecedence))
			},
			Attempt: func(ctx context.Context, t *Target) error { return create(ctx, t, gvrFlowSchema, flowSchema(t, 1)) }},
		{ID: "flowcontrol/prioritylevelconfigurations.spec.type", Class: ClassFlowControl, TwinRBAC: true, Paths: paths,
			Title: "make an Exempt priority level (no fairness)",
			Twin: func(ctx context.Context, t *Target) error {
				return create(ctx, t, gvrPriorityLevel, level(t, map[string]any{"type": "Limited", "limited": map[string]any{
					"nominalConcurrencyShares": int64(1), "limitResponse": map[string]any{"type": "Reject"}}}))
			},
			Attempt: func(ctx context.Context, t *Target) error {
				return create(ctx, t, gvrPriorityLevel, level(t, map[string]any{"type": "Exempt", "exempt": map[string]any{}}))
			}},
	}
}
