package transfer

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindCleaners remove what controllers and allocators fill in on the
// objects of a built-in kind, by its GroupKind; each is a row of the kinds
// table (TestKindCleanersAreRows).
var kindCleaners = map[schema.GroupKind]func(obj *unstructured.Unstructured){
	{Kind: "Namespace"}: func(obj *unstructured.Unstructured) {
		unstructured.RemoveNestedField(obj.Object, "spec", "finalizers")
	},
	{Kind: "Service"}: func(obj *unstructured.Unstructured) {
		if ip, _, _ := unstructured.NestedString(obj.Object, "spec", "clusterIP"); ip != "None" {
			unstructured.RemoveNestedField(obj.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(obj.Object, "spec", "clusterIPs")
		}
	},
	{Kind: "PersistentVolumeClaim"}: func(obj *unstructured.Unstructured) {
		if obj.GetAnnotations()["pv.kubernetes.io/bound-by-controller"] == "yes" {
			unstructured.RemoveNestedField(obj.Object, "spec", "volumeName")
		}
	},
	{Kind: "PersistentVolume"}: func(obj *unstructured.Unstructured) {
		for _, f := range []string{"uid", "resourceVersion"} {
			unstructured.RemoveNestedField(obj.Object, "spec", "claimRef", f)
		}
	},
	{Kind: "Pod"}: func(obj *unstructured.Unstructured) {
		unstructured.RemoveNestedField(obj.Object, "spec", "nodeName")
	},
	{Kind: "Secret"}: func(obj *unstructured.Unstructured) {
		if obj.Object["type"] == "kubernetes.io/service-account-token" {
			// The token controller fills it in for the account of this
			// cluster, and deletes a token naming another account's uid.
			delete(obj.Object, "data")
			unstructured.RemoveNestedField(obj.Object, "metadata", "annotations", "kubernetes.io/service-account.uid")
		}
	},
	{Group: "batch", Kind: "Job"}:        cleanJob,
	{Group: "apps", Kind: "StatefulSet"}: func(obj *unstructured.Unstructured) { cleanClaimTemplates(obj.Object) },
}

// cleanJob removes the selector and labels the Job controller generated
// (unless the Job chose its own selector).
func cleanJob(obj *unstructured.Unstructured) {
	if manual, _, _ := unstructured.NestedBool(obj.Object, "spec", "manualSelector"); manual {
		return
	}
	unstructured.RemoveNestedField(obj.Object, "spec", "selector")
	labels, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "template", "metadata", "labels")
	for _, k := range jobLabels {
		delete(labels, k)
	}
	if len(labels) == 0 {
		unstructured.RemoveNestedField(obj.Object, "spec", "template", "metadata", "labels")
		return
	}
	_ = unstructured.SetNestedStringMap(obj.Object, labels, "spec", "template", "metadata", "labels")
}

// cleanClaimTemplates removes the status the API server shows on a
// StatefulSet's claim templates.
func cleanClaimTemplates(o map[string]any) {
	templates, _, _ := unstructured.NestedSlice(o, "spec", "volumeClaimTemplates")
	for _, t := range templates {
		if m, ok := t.(map[string]any); ok {
			delete(m, "status")
		}
	}
	if templates != nil {
		_ = unstructured.SetNestedSlice(o, templates, "spec", "volumeClaimTemplates")
	}
}
