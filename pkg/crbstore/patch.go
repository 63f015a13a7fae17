package crbstore

import (
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A stored binding has no subjects upstream, so the upstream cannot apply a
// patch that touches them: the proxy reads the stored binding, and Patch
// rebuilds the tenant's view of it, applies the tenant's patch there (JSON,
// merge or strategic merge, as the API server would) and translates the
// result back. The proxy then stores it (Store) as an update carrying the
// resourceVersion it read, so a concurrent write makes it start over.

// Patchable reports whether a patch of media type ct (without parameters)
// can be applied to a stored binding; when not, the error is the 415 to
// answer. Server-side apply cannot: the API server's field ownership would
// not see the subjects, which are stored apart from the binding.
func Patchable(ct string) error {
	switch ct {
	case translate.MediaJSONPatch, translate.MediaMergePatch, translate.MediaStrategic:
		return nil
	}
	return &translate.Error{Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("patch type %q is not supported for ClusterRoleBindings through kubectl-zoo (their subjects are stored apart "+
			"from the binding upstream, so server-side apply cannot track them); use a json, merge or strategic patch, "+
			"`kubectl apply` without --server-side, or `kubectl replace`", ct)}
}

// Patch applies patch (media type ct, the tenant's names) to the tenant's
// view of stored, the upstream JSON of a stored binding, and returns the
// result in upstream names with its subjects, and the resourceVersion that
// was read. tr is the tenant's translator. Errors are *translate.Error.
func Patch(tr *translate.Translator, stored []byte, ct string, patch []byte) (*rbacv1.ClusterRoleBinding, string, error) {
	if err := Patchable(ct); err != nil {
		return nil, "", err
	}
	obj, err := translate.DecodeDocument(stored)
	if err != nil {
		return nil, "", badRequest("decoding the stored ClusterRoleBinding: %v", err)
	}
	RestoreObject(tr.Tenant(), obj)
	if err := tr.ObjectToTenant(Resource, obj); err != nil {
		return nil, "", err
	}
	meta, _ := obj["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	view, err := json.Marshal(obj)
	if err != nil {
		return nil, "", badRequest("%v", err)
	}
	patched, err := applyPatch(ct, view, patch)
	if err != nil {
		return nil, "", invalid("the patch cannot be applied to the ClusterRoleBinding: %v", err)
	}
	if obj, err = translate.DecodeDocument(patched); err != nil {
		return nil, "", badRequest("decoding the patched ClusterRoleBinding: %v", err)
	}
	if err := tr.ObjectToUpstream(Resource, obj); err != nil {
		return nil, "", err
	}
	up, err := json.Marshal(obj)
	if err != nil {
		return nil, "", badRequest("%v", err)
	}
	var crb rbacv1.ClusterRoleBinding
	if err := json.Unmarshal(up, &crb); err != nil {
		return nil, "", invalid("the patched ClusterRoleBinding is not valid: %v", err)
	}
	return &crb, rv, nil
}

// applyPatch applies a JSON, merge or strategic merge patch to a
// ClusterRoleBinding document, as the API server would.
func applyPatch(ct string, doc, patch []byte) ([]byte, error) {
	switch ct {
	case translate.MediaJSONPatch:
		ops, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, fmt.Errorf("decoding json patch: %w", err)
		}
		return ops.Apply(doc)
	case translate.MediaMergePatch:
		js, err := yaml.YAMLToJSON(patch)
		if err != nil {
			return nil, fmt.Errorf("decoding merge patch: %w", err)
		}
		return jsonpatch.MergePatch(doc, js)
	case translate.MediaStrategic:
		js, err := yaml.YAMLToJSON(patch)
		if err != nil {
			return nil, fmt.Errorf("decoding strategic merge patch: %w", err)
		}
		return strategicpatch.StrategicMergePatch(doc, js, rbacv1.ClusterRoleBinding{})
	}
	return nil, fmt.Errorf("unsupported patch type %q", ct)
}

func badRequest(format string, args ...any) error {
	return &translate.Error{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return &translate.Error{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: fmt.Sprintf(format, args...)}
}
