package translate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
)

// A json patch can copy or move a value the translator never sees (from
// /data/x to /metadata/namespace, into a RoleBinding subject, ...), and a
// value's translation can depend on fields the patch does not carry (the
// kind next to an ownerReference's name). So the proxy does not forward
// json, merge or strategic merge patches (PlanPatchInView): it reads the
// object, applies the tenant's patch to the tenant's view of it with the
// libraries the API server uses, translates the result as a whole object
// and sends the difference as a merge patch whose every value the
// translator produced, conditional on the resourceVersion it read.

// maxJSONPatchOperations and maxJSONPatchCopyBytes are the API server's
// limits (k8s.io/apiserver handlers/patch.go and server/config.go).
const (
	maxJSONPatchOperations = 10000
	maxJSONPatchCopyBytes  = 3 << 20
)

func init() {
	// The API server sets the same process-wide limit; copy operations
	// could otherwise grow a document without bound in the proxy.
	atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, 0, maxJSONPatchCopyBytes)
}

// patchedInView reports whether patches of this media type are applied by
// the proxy to the tenant's view (PlanPatchInView).
func patchedInView(contentType string) bool {
	switch mediaType(contentType) {
	case MediaJSONPatch, MediaMergePatch, MediaStrategic:
		return true
	}
	return false
}

// ViewPatch is the upstream form of a tenant's patch applied in its view.
type ViewPatch struct {
	// Body is the JSON merge patch to send upstream (Content-Type
	// MediaMergePatch) to u.Path.
	Body []byte
	// Retry is true when a 409 Conflict answer to Body means only that the
	// object changed since it was read, so reading and patching again is
	// right; false when the tenant's patch set the resourceVersion itself.
	Retry bool
	// Warnings are the API server's warnings about the tenant's patch
	// (the keys it repeats, patchRepeats), for the answer.
	Warnings []string
}

// PatchInView applies a tenant's patch of media type contentType (u.Plan is
// PlanPatchInView) to current, the object as the upstream answered a GET of
// u.Path (JSON), in the tenant's view, and returns the upstream patch.
func (t *Translator) PatchInView(u *UpstreamRequest, contentType string, patch, current []byte) (*ViewPatch, error) {
	rule := bodyRule(u.Rule, u.Info.Subresource)
	obj, err := DecodeBody(MediaJSON, current)
	if err != nil {
		return nil, fmt.Errorf("decoding the current object: %w", err)
	}
	readRV := str(child(obj, "metadata"), "resourceVersion")
	if err := t.objectOut(rule, obj); err != nil {
		return nil, err
	}
	view, err := marshalJSON(obj)
	if err != nil {
		return nil, err
	}
	patched, err := applyInView(mediaType(contentType), view, patch, obj)
	if err != nil {
		return nil, err
	}
	warnings, err := patchRepeats(u.Query.Get("fieldValidation"), mediaType(contentType), patch, patched)
	if err != nil {
		return nil, err
	}
	base, err := t.upstreamJSON(rule, view) // without its resourceVersion, so that the patch always carries one
	if err != nil {
		return nil, err
	}
	result, err := DecodeBody(MediaJSON, patched)
	if err != nil {
		return nil, &Error{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: "the patched object is not a JSON object"}
	}
	meta := ensureChild(result, "metadata") // a patch that removed it still gets the ownership label back
	patchedRV := str(meta, "resourceVersion")
	if rule == u.Rule {
		j := t.newPlatformJudge(rule, u)
		j.obj, j.objLooked = obj, true // the current object, in the view (a template's keys are not translated)
		if err := j.templates(result, false); err != nil {
			return nil, err
		}
	}
	if err := t.objectIn(rule, result); err != nil {
		return nil, err
	}
	if patchedRV == "" {
		patchedRV = readRV
	}
	meta["resourceVersion"] = patchedRV
	up, err := marshalJSON(result)
	if err != nil {
		return nil, err
	}
	body, err := jsonpatch.CreateMergePatch(base, up)
	if err != nil {
		return nil, fmt.Errorf("computing the upstream patch: %w", err)
	}
	return &ViewPatch{Body: body, Retry: patchedRV == readRV, Warnings: warnings}, nil
}

// upstreamJSON is the upstream form of a tenant view document, without
// its resourceVersion.
func (t *Translator) upstreamJSON(rule *KindRule, view []byte) ([]byte, error) {
	obj, err := DecodeBody(MediaJSON, view)
	if err != nil {
		return nil, err
	}
	if err := t.objectIn(rule, obj); err != nil {
		return nil, err
	}
	if meta := child(obj, "metadata"); meta != nil {
		delete(meta, "resourceVersion")
	}
	return marshalJSON(obj)
}

// applyInView applies a patch to a document as the API server does
// (k8s.io/apiserver handlers/patch.go); obj is the document decoded, for the
// schema of a strategic merge patch.
func applyInView(mt string, doc, patch []byte, obj map[string]any) ([]byte, error) {
	switch mt {
	case MediaJSONPatch:
		ops, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, badRequest("decoding the json patch: %w", err)
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, &Error{Code: http.StatusRequestEntityTooLarge, Reason: metav1.StatusReasonRequestEntityTooLarge,
				Message: fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops))}
		}
		out, err := ops.Apply(doc)
		if err != nil {
			return nil, &Error{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: err.Error()}
		}
		return out, nil
	case MediaMergePatch:
		out, err := jsonpatch.MergePatch(doc, patch)
		if err != nil {
			return nil, badRequest("applying the merge patch: %w", err)
		}
		return out, nil
	case MediaStrategic:
		gv, err := schema.ParseGroupVersion(str(obj, "apiVersion"))
		if err != nil {
			return nil, badRequest("the object has an invalid apiVersion: %w", err)
		}
		schemaObj, err := scheme.Scheme.New(gv.WithKind(str(obj, "kind")))
		if err != nil {
			return nil, &Error{Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
				Message: fmt.Sprintf("strategic merge patch is not supported for %s", gv.WithKind(str(obj, "kind")).String())}
		}
		var original, patchMap map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(patch, &patchMap); err != nil {
			return nil, badRequest("decoding the strategic merge patch: %w", err)
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &original); err != nil {
			return nil, fmt.Errorf("decoding the tenant's view: %w", err)
		}
		out, err := strategicpatch.StrategicMergeMapPatch(original, patchMap, schemaObj)
		if err != nil {
			return nil, smpError(err)
		}
		return json.Marshal(out)
	}
	return nil, unsupportedMedia(mt)
}

// smpError is the Status of a failed strategic merge patch, as the API
// server's interpretStrategicMergePatchError gives it.
func smpError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return badRequest("%w", err)
	}
	return &Error{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: err.Error(), Err: err}
}
