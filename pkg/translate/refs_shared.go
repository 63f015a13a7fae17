package translate

import (
	"encoding/json"
	"strconv"
)

// MaxTenantPriority is the highest value a tenant PriorityClass may have. The
// default priority of pods without a class is 0, so a tenant's pods never
// outrank another tenant's ordinary pods; tenant classes also never preempt.
const MaxTenantPriority = 0

// priorityClassConfinement caps a tenant PriorityClass on the way in: value at
// most MaxTenantPriority, preemptionPolicy Never, never the global default.
var priorityClassConfinement = Ref{Field: "value", Target: TargetPlatform, apply: func(m *mapper, obj map[string]any) error {
	if !m.in {
		return nil
	}
	if v, ok := numberValue(obj["value"]); ok && v > MaxTenantPriority {
		obj["value"] = json.Number(strconv.Itoa(MaxTenantPriority))
	}
	if _, ok := obj["value"]; ok {
		obj["preemptionPolicy"] = "Never"
	}
	if g, ok := obj["globalDefault"].(bool); ok && g {
		obj["globalDefault"] = false
	}
	return nil
}}

// pvcSpecRefs are the references of a PersistentVolumeClaim.
var pvcSpecRefs = claimSpecRefs("spec")

// pvRefs are the references of a PersistentVolume.
var pvRefs = append([]Ref{
	objectRefAt("spec.claimRef"),
	pvClassRef,
	sharedNameRef("spec", "volumeAttributesClassName", grVolumeAttrClass),
}, append(pvOutsideRefs(), pvVolumeSourceRefs()...)...)

// networkPolicyRefs confine NetworkPolicy namespace selectors to the tenant's
// namespaces (an empty selector means "all my namespaces").
var networkPolicyRefs = []Ref{
	labelSelectorRef("spec.ingress[].from[]", "namespaceSelector", true, false),
	labelSelectorRef("spec.egress[].to[]", "namespaceSelector", true, false),
}

var ingressRefs = append([]Ref{
	sharedNameRef("spec", "ingressClassName", grIngressClass),
	apiGroupRef(TargetLocal, "spec.defaultBackend.resource", "apiGroup"),
	apiGroupRef(TargetLocal, "spec.rules[].http.paths[].backend.resource", "apiGroup"),
}, ingressHostRefs...) // refs_ingress.go

// numberValue reads a JSON number decoded as json.Number or float64.
func numberValue(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}
