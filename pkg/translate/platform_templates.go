package translate

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A pod template's labels and annotations become those of every pod a
// controller makes from it, so on a pod template the platform owns what it
// owns on a pod (the Pod row's PlatformDomains): a network plugin's address
// or network, a mesh's injection, an autoscaler's eviction key. The proxy
// judges templates here; zoo-tenant-metadata judges them upstream from the
// same lists (admissionrules/templates.go).

// TemplateAPIServerKey is a label the API server itself writes into the
// pod templates of a kind: a tenant's write may carry it, whatever its
// value, as the strategy of the kind fills it in before admission.
type TemplateAPIServerKey struct {
	// Resource is the kind whose templates carry it.
	Resource schema.GroupResource
	// Key is the label key.
	Key string
	// Reason says why it is harmless.
	Reason string
}

// templateAPIServerKeys are the labels the Job strategy writes into a new
// Job's template (k8s.io/kubernetes pkg/registry/batch/job, generateSelector):
// the Job controller reads them only in the Job's own namespace.
var templateAPIServerKeys = []TemplateAPIServerKey{
	{Resource: grJob, Key: "batch.kubernetes.io/controller-uid",
		Reason: "the Job strategy selects the Job's pods by it; the Job controller reads it in the Job's namespace only"},
	{Resource: grJob, Key: "batch.kubernetes.io/job-name",
		Reason: "likewise, the Job's name"},
}

// TemplateAPIServerKeys returns the labels the API server writes into pod
// templates, in order.
func TemplateAPIServerKeys() []TemplateAPIServerKey { return slices.Clone(templateAPIServerKeys) }

// PodTemplatePaths are the dotted paths of the pod templates of the rule's
// objects ("spec.template", "template", ...): the objects whose metadata
// becomes a pod's. A pod's own spec ("spec") is none.
func (r *KindRule) PodTemplatePaths() []string {
	var out []string
	for _, p := range podSpecPaths(r) {
		if t, ok := strings.CutSuffix(p, ".spec"); ok {
			out = append(out, t)
		}
	}
	return out
}

// templateKey returns the row that makes key of a pod template of an
// object of rule platform-owned: the key is platform-owned on a pod and the
// API server does not write it into the kind's templates.
func templateKey(rule *KindRule, annotation bool, key string) (*PlatformKey, bool) {
	row, ok := platformKey(grPod, annotation, key)
	if !ok {
		return nil, false
	}
	for _, k := range templateAPIServerKeys {
		if !annotation && k.Resource == rule.Resource && k.Key == key {
			return nil, false
		}
	}
	return row, true
}

// templates judges the pod templates of a write of an object of rule
// (tenant form): on a create no platform-owned key; on an update each such
// key must have the value it has in the current object's template (the
// object is read only when a template carries one).
func (j *platformJudge) templates(obj map[string]any, create bool) error {
	for _, path := range j.rule.PodTemplatePaths() {
		meta := child(childPath(obj, path), "metadata")
		for _, annotation := range []bool{false, true} {
			for key, v := range fieldMap(meta, annotation) {
				row, ok := templateKey(j.rule, annotation, key)
				if !ok {
					continue
				}
				if !create {
					old, had, err := j.currentTemplateKey(path, annotation, key)
					if err != nil {
						return err
					}
					if s, isString := v.(string); had && isString && s == old {
						continue
					}
				}
				return platformKeyError(j.rule.Resource, j.name, row, key+" of the pod template "+path, "set")
			}
		}
	}
	return nil
}

// currentTemplateKey reads the key of the template at path of the current
// object (read once).
func (j *platformJudge) currentTemplateKey(path string, annotation bool, key string) (string, bool, error) {
	if !j.objLooked {
		j.objLooked = true
		if j.t.opts.Platform != nil {
			obj, found, err := j.t.opts.Platform.CurrentObject(j.path)
			if err != nil {
				return "", false, lookupError("read the object to keep the platform-owned metadata of its pod templates", err)
			}
			if found {
				j.obj = obj
			}
		}
	}
	v, ok := fieldMap(child(childPath(j.obj, path), "metadata"), annotation)[key].(string)
	return v, ok, nil
}

// childPath returns the object at the dotted path of obj, or nil.
func childPath(obj map[string]any, path string) map[string]any {
	for _, k := range strings.Split(path, ".") {
		obj = child(obj, k)
	}
	return obj
}
