package verify

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// classBases are the harmless objects of the kinds that name or are
// classes: a StorageClass, an IngressClass and a PriorityClass of the
// attacker's (no provisioner nor controller runs, its parameters a
// ConfigMap of the attacker's, priority 0 that never preempts), a CSIStorageCapacity
// of the attacker's own class, and device claims (and their templates)
// that request nothing.
var classBases = map[schema.GroupKind]outsideBase{
	{Group: "storage.k8s.io", Kind: "StorageClass"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("storage.k8s.io/v1", "StorageClass", "", t.Prefix+name, t.Owner, map[string]any{
			"provisioner": "zoo-verify.example.com/none", "parameters": map[string]any{"zoo-verify.example.com/harmless": "true"}})
	},
	{Group: "networking.k8s.io", Kind: "IngressClass"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("networking.k8s.io/v1", "IngressClass", "", t.Prefix+name, t.Owner, map[string]any{"spec": map[string]any{
			"controller": "zoo-verify.example.com/none", "parameters": map[string]any{
				"kind": "ConfigMap", "name": ScratchObject, "scope": "Namespace", "namespace": t.Namespace}}})
	},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("scheduling.k8s.io/v1", "PriorityClass", "", t.Prefix+name, t.Owner, map[string]any{
			"value": int64(0), "preemptionPolicy": "Never"})
	},
	{Group: "storage.k8s.io", Kind: "CSIStorageCapacity"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("storage.k8s.io/v1", "CSIStorageCapacity", t.Namespace, name, nil, map[string]any{
			"storageClassName": t.Prefix + ScratchObject, "capacity": "1Gi"})
	},
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("resource.k8s.io/v1", "ResourceClaim", t.Namespace, name, nil, map[string]any{"spec": noDevices()})
	},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("resource.k8s.io/v1", "ResourceClaimTemplate", t.Namespace, name, nil, map[string]any{
			"spec": map[string]any{"spec": noDevices()}})
	},
}

// outsideKeys are the keys of the path of field an attempt sets: a
// parameter key the table names by its suffix ("*-secret-namespace") is
// the CSI provisioner's.
func outsideKeys(field string) []string {
	keys := strings.Split(field, ".")
	if last, ok := strings.CutPrefix(keys[len(keys)-1], "*"); ok {
		keys[len(keys)-1] = "csi.storage.k8s.io/provisioner" + last
	}
	return keys
}

// noDevices is the spec of a device claim that requests no device.
func noDevices() map[string]any {
	return map[string]any{"devices": map[string]any{"requests": []any{}}}
}
