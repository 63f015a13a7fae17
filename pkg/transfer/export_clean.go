package transfer

import (
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The keys the cluster writes on objects, which a new cluster writes again.
var (
	serverAnnotations = []string{
		"kubectl.kubernetes.io/last-applied-configuration", "deployment.kubernetes.io/revision",
		"pv.kubernetes.io/bind-completed", "pv.kubernetes.io/bound-by-controller", "pv.kubernetes.io/provisioned-by",
		"volume.kubernetes.io/selected-node", "volume.kubernetes.io/storage-provisioner", "volume.beta.kubernetes.io/storage-provisioner",
	}
	serverFinalizers = map[string]bool{"kubernetes.io/pvc-protection": true, "kubernetes.io/pv-protection": true}
	// jobLabels are the labels the Job controller puts on a Job's selector
	// and pod template, naming the Job's uid.
	jobLabels       = []string{"controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"}
	ownerKindName   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,62}$`)
	endpointSliceBy = map[string]bool{"endpointslice-controller.k8s.io": true, "endpointslicemirroring-controller.k8s.io": true}
)

// ExportSet is what the omission of one object depends on in the others.
type ExportSet struct {
	// IncludeSecrets exports Secrets.
	IncludeSecrets bool
	// selectorServices are the "namespace/name" of Services with a
	// selector: their Endpoints are the endpoints controller's.
	selectorServices map[string]bool
}

// NewExportSet returns the ExportSet of objs (the tenant's objects, as its
// view shows them).
func NewExportSet(objs []*unstructured.Unstructured, includeSecrets bool) *ExportSet {
	s := &ExportSet{IncludeSecrets: includeSecrets, selectorServices: map[string]bool{}}
	for _, o := range objs {
		if o.GetKind() == "Service" && o.GroupVersionKind().Group == "" {
			if sel, _, _ := unstructured.NestedMap(o.Object, "spec", "selector"); len(sel) > 0 {
				s.selectorServices[o.GetNamespace()+"/"+o.GetName()] = true
			}
		}
	}
	return s
}

// Omit says why obj is left out of an export, or "" to export it: an object
// that a controller, the cluster or kubectl-zoo makes by itself (and makes
// again where the export is applied), or a Secret without IncludeSecrets.
// What a tenant writes here only leaves its own objects out of its own export.
func (s *ExportSet) Omit(obj *unstructured.Unstructured) string {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			if !ownerKindName.MatchString(ref.Kind) { // the tenant wrote it: nothing else is printed
				return "made by its controller"
			}
			return "made by its controller (a " + ref.Kind + ")"
		}
	}
	labels, name, group := obj.GetLabels(), obj.GetName(), obj.GroupVersionKind().Group
	switch {
	case labels[translate.PropagatedFromLabel] != "":
		return "propagated by kubectl-zoo"
	case labels[tenantapi.ManagedByLabel] == tenantapi.ManagedByValue:
		return "made by kubectl-zoo for every tenant"
	case group != "":
		if obj.GetKind() == "EndpointSlice" && endpointSliceBy[labels["endpointslice.kubernetes.io/managed-by"]] {
			return "made by the endpoint slice controllers"
		}
		return ""
	}
	switch obj.GetKind() {
	case "ServiceAccount":
		if name == "default" {
			return "made by the cluster in every namespace"
		}
	case "ConfigMap":
		if name == "kube-root-ca.crt" {
			return "published by the cluster in every namespace"
		}
	case "Endpoints":
		if s.selectorServices[obj.GetNamespace()+"/"+name] {
			return "made by the endpoints controller for its Service"
		}
	case "PersistentVolume":
		if obj.GetAnnotations()["pv.kubernetes.io/provisioned-by"] != "" {
			return "provisioned for its claim"
		}
	case "Secret":
		if !s.IncludeSecrets {
			return "Secrets (no --include-secrets)"
		}
	}
	return ""
}

// CleanForExport removes from obj, in place, what the cluster populates: the
// server's metadata, status, owner references, the platform's labels and
// annotations, and the fields a controller or allocator fills in (a Service's
// cluster IPs, the volume bound to a claim, a Job's generated selector).
func CleanForExport(obj *unstructured.Unstructured) {
	for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
		"deletionTimestamp", "deletionGracePeriodSeconds", "generateName", "ownerReferences"} {
		unstructured.RemoveNestedField(obj.Object, "metadata", f)
	}
	delete(obj.Object, "status")
	if clean, ok := kindCleaners[obj.GroupVersionKind().GroupKind()]; ok {
		clean(obj) // before the annotations go: a claim's say who bound it
	}
	namespace := obj.GetKind() == "Namespace" && obj.GroupVersionKind().Group == ""
	obj.SetLabels(withoutKeys(obj.GetLabels(), func(k string) bool {
		return platformKey(k) || namespace && (k == "kubernetes.io/metadata.name" || strings.HasPrefix(k, translate.PodSecurityPrefix))
	}))
	obj.SetAnnotations(withoutKeys(obj.GetAnnotations(), func(k string) bool {
		return platformKey(k) || slices.Contains(serverAnnotations, k)
	}))
	var finalizers []string
	for _, f := range obj.GetFinalizers() {
		if !serverFinalizers[f] {
			finalizers = append(finalizers, f)
		}
	}
	obj.SetFinalizers(finalizers)
	dropNullTimestamps(obj.Object)
}

// dropNullTimestamps removes "creationTimestamp: null" from the metadata of
// templates, anywhere in o.
func dropNullTimestamps(v any) {
	switch v := v.(type) {
	case map[string]any:
		if md, ok := v["metadata"].(map[string]any); ok {
			if ts, set := md["creationTimestamp"]; set && ts == nil {
				delete(md, "creationTimestamp")
			}
		}
		for _, c := range v {
			dropNullTimestamps(c)
		}
	case []any:
		for _, c := range v {
			dropNullTimestamps(c)
		}
	}
}

// platformKey reports whether a label or annotation key is kubectl-zoo's
// (zoo.kubectl-zoo.io or a subdomain).
func platformKey(k string) bool {
	prefix, _, found := strings.Cut(k, "/")
	return found && (prefix == translate.APIGroup || strings.HasSuffix(prefix, "."+translate.APIGroup))
}

// withoutKeys returns m without the keys drop matches (nil when empty).
func withoutKeys(m map[string]string, drop func(string) bool) map[string]string {
	for k := range m {
		if drop(k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
