package verify

import (
	"context"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The refused references of the kinds table (translate.KindRule's
// RefusedFields: an address the cluster routes, a URL the API server
// dials, a path on the machines) each get an attempt without code of
// their own: the kind's harmless object (refusedBases) with the field set
// to a value of what it names (refusedValue). A new refused field of a kind
// and target verify knows gets its attempt from the table alone;
// TestRefusedChecks fails for one it cannot make.

// refusedBase is a kind's harmless object, the twin of its attempts.
type refusedBase struct {
	// object is the twin, named as t's path names the attacker's own.
	object func(t *Target) *unstructured.Unstructured
	// oneOf are sets of keys of which an object holds one: setting one
	// removes the others of its set from the same parent.
	oneOf [][]string
	// notApplicable, if set, says why the tenant's policy keeps the twin
	// from being made.
	notApplicable func(p policy.Policy) string
}

// refusedBases are the harmless objects of the kinds with refused fields.
var refusedBases = map[schema.GroupResource]refusedBase{
	translate.KindResource("", "Service"): {object: func(t *Target) *unstructured.Unstructured {
		return object("v1", "Service", t.Namespace, "zoo-verify-refused", nil, map[string]any{
			"spec": map[string]any{"ports": []any{map[string]any{"port": int64(80)}}}})
	}},
	translate.KindResource("", "PersistentVolume"): {object: func(t *Target) *unstructured.Unstructured {
		return object("v1", "PersistentVolume", "", t.Prefix+"zoo-verify-refused", t.Owner, map[string]any{
			"spec": map[string]any{"capacity": map[string]any{"storage": "1Gi"}, "accessModes": []any{"ReadWriteOnce"},
				"storageClassName": t.Prefix + ScratchObject, "csi": map[string]any{"driver": "zoo-verify.example.com", "volumeHandle": "none"},
				"nodeAffinity": map[string]any{"required": map[string]any{"nodeSelectorTerms": []any{map[string]any{
					"matchExpressions": []any{map[string]any{"key": "kubernetes.io/hostname", "operator": "In", "values": []any{"none"}}}}}}}}})
	}, oneOf: [][]string{{"csi", "hostPath", "local"}}, notApplicable: func(p policy.Policy) string {
		if !slices.Contains(p.VolumeSources, "csi") {
			return "the tenant's policy allows no csi volumes (kubectl zoo policy set --volume-sources), the source of the harmless twin; a path on the machines is refused as every source the policy does not allow"
		}
		return ""
	}},
	translate.KindResource(admissionregistrationv1.GroupName, "ValidatingWebhookConfiguration"): {object: func(t *Target) *unstructured.Unstructured {
		return webhookConfiguration(t, "ValidatingWebhookConfiguration", "zoo-verify-refused")
	}, oneOf: [][]string{{"service", "url"}}},
	translate.KindResource(admissionregistrationv1.GroupName, "MutatingWebhookConfiguration"): {object: func(t *Target) *unstructured.Unstructured {
		return webhookConfiguration(t, "MutatingWebhookConfiguration", "zoo-verify-refused")
	}, oneOf: [][]string{{"service", "url"}}},
	translate.KindResource("apiextensions.k8s.io", "CustomResourceDefinition"): {object: conversionCRD, oneOf: [][]string{{"service", "url"}}},
}

// refusedValue is what an attempt sets a field of target, whose last key
// is leaf, to; nil for a target verify has no value of.
func refusedValue(target translate.Target, leaf string) any {
	switch target {
	case translate.TargetAddress:
		if strings.HasSuffix(leaf, "s") { // a list of addresses
			return []any{"192.0.2.10"}
		}
		return "192.0.2.10"
	case translate.TargetURL:
		return "https://192.0.2.10/zoo-verify"
	case translate.TargetHostPath:
		return map[string]any{"path": "/etc"}
	}
	return nil
}

// refusedClass is the class of docs/security.md of a refused target.
func refusedClass(target translate.Target) string {
	if target == translate.TargetURL {
		return ClassAdmission
	}
	if target == translate.TargetHostPath {
		return ClassStorage
	}
	return ClassAddresses
}

// refusedChecks are the attempts of every refused reference of the kinds
// table that verify can make.
func refusedChecks() []Check {
	var out []Check
	for _, rule := range translate.Kinds() {
		base, ok := refusedBases[rule.Resource]
		for _, ref := range rule.Refs {
			value := refusedValue(ref.Target, lastKey(ref.Field))
			if !ref.Target.Refused() || !ok || value == nil {
				continue
			}
			out = append(out, refusedCheck(rule.Resource, ref, base, value))
		}
	}
	return out
}

// refusedCheck sets ref's field of base's object to value (twin: base's
// object).
func refusedCheck(gr schema.GroupResource, ref translate.Ref, base refusedBase, value any) Check {
	create := func(ctx context.Context, t *Target, obj *unstructured.Unstructured) error {
		_, err := t.Dynamic.Resource(gr.WithVersion(obj.GroupVersionKind().Version)).Namespace(obj.GetNamespace()).Create(ctx, obj, dryRun)
		return err
	}
	return Check{ID: refusedCheckID(gr, ref.Field), Class: refusedClass(ref.Target), NotApplicable: base.notApplicable, TwinRBAC: true,
		Title: "set " + ref.Field + " of a " + gr.Resource + " to a " + ref.Target.String(),
		Twin:  func(ctx context.Context, t *Target) error { return create(ctx, t, base.object(t)) },
		Attempt: func(ctx context.Context, t *Target) error {
			obj := base.object(t)
			setField(obj.Object, strings.Split(ref.Field, "."), value, base.oneOf)
			return create(ctx, t, obj)
		}}
}

// refusedCheckID is the ID of the attempt at gr's refused field.
func refusedCheckID(gr schema.GroupResource, field string) string {
	return "refused/" + gr.String() + "." + field
}

// lastKey is the last key of a field path ("webhooks[].clientConfig.url": "url").
func lastKey(field string) string {
	keys := strings.Split(field, ".")
	return strings.TrimSuffix(keys[len(keys)-1], "[]")
}

// setField sets the path of keys of obj to value, through every element of
// a list ("key[]"), making the maps on the way, and removes from the parent
// the keys of oneOf that the last key excludes.
func setField(obj map[string]any, keys []string, value any, oneOf [][]string) {
	key, list := strings.CutSuffix(keys[0], "[]")
	if len(keys) == 1 {
		for _, set := range oneOf {
			if slices.Contains(set, key) {
				for _, other := range set {
					delete(obj, other)
				}
			}
		}
		obj[key] = value
		return
	}
	if list {
		items, _ := obj[key].([]any)
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				setField(m, keys[1:], value, oneOf)
			}
		}
		return
	}
	next, ok := obj[key].(map[string]any)
	if !ok {
		next = map[string]any{}
		obj[key] = next
	}
	setField(next, keys[1:], value, oneOf)
}

// object is an unstructured object of apiVersion and kind with fields.
func object(apiVersion, kind, ns, name string, labels map[string]string, fields map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: fields}
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kind)
	obj.SetNamespace(ns)
	obj.SetName(name)
	if len(labels) > 0 {
		obj.SetLabels(labels)
	}
	return obj
}

// serviceRef is the attacker's Service as a webhook's clientConfig names it.
func serviceRef(t *Target) map[string]any {
	return map[string]any{"service": map[string]any{"namespace": t.Namespace, "name": t.Service, "port": int64(443)}}
}

// webhookConfiguration is a webhook configuration of kind of the
// attacker's, its one webhook its Service, never called (it matches no
// namespace's ConfigMap: failurePolicy Ignore, an impossible selector).
func webhookConfiguration(t *Target, kind, name string) *unstructured.Unstructured {
	return object("admissionregistration.k8s.io/v1", kind, "", t.Prefix+name, t.Owner, map[string]any{
		"webhooks": []any{map[string]any{"name": "zoo-verify.example.com", "clientConfig": serviceRef(t),
			"rules":       []any{configMapRule()},
			"sideEffects": "None", "admissionReviewVersions": []any{"v1"}, "failurePolicy": "Ignore",
			"objectSelector": neverSelector()}}})
}

// conversionCRD is a CRD of the attacker's whose conversion webhook is its
// Service.
func conversionCRD(t *Target) *unstructured.Unstructured {
	group := t.Prefix + "zoo-verify.example.com"
	schema := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
	return object("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "probes."+group, t.Owner, map[string]any{
		"spec": map[string]any{"group": group, "scope": "Namespaced",
			"names":    map[string]any{"plural": "probes", "singular": "probe", "kind": "Probe", "listKind": "ProbeList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": schema}},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"}, "clientConfig": serviceRef(t)}}}})
}
