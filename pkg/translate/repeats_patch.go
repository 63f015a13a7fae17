package translate

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// A patch applied in the tenant's view (PlanPatchInView) reaches the
// upstream as a merge patch the translator derived, which repeats nothing:
// the keys the tenant's patch repeated are reported by the translator, as
// the API server reports them (k8s.io/apiserver handlers/patch.go), with the
// library it uses (sigs.k8s.io/json). The unknown fields of the patched
// object are still the upstream's to report, from the derived patch.

// jsonPatchOp is the API server's strict view of a json patch operation.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// patchRepeats reports the keys a patch of media type mt repeats, per
// fieldValidation: Strict refuses the patch with the API server's 422
// (patched is the patched object in the tenant's view); Warn, the default,
// returns the API server's warnings; Ignore, nothing.
func patchRepeats(fieldValidation, mt string, patch, patched []byte) ([]string, error) {
	if fieldValidation != "" && fieldValidation != metav1.FieldValidationWarn && fieldValidation != metav1.FieldValidationStrict {
		return nil, nil
	}
	if _, r, err := decodeRepeats(patch); err != nil || r.empty() {
		return nil, nil // a malformed patch was refused when it was applied
	}
	var strictErrs []error
	var value string
	switch mt {
	case MediaJSONPatch:
		var ops []jsonPatchOp
		errs, err := kjson.UnmarshalStrict(patch, &ops)
		if err != nil {
			return nil, nil // as above
		}
		for _, e := range errs {
			strictErrs = append(strictErrs, fmt.Errorf("json patch %w", e))
		}
		value = string(patched)
	case MediaMergePatch:
		errs, err := kjson.UnmarshalStrict(patch, &map[string]any{})
		if err != nil {
			return nil, nil // as above
		}
		strictErrs, value = errs, string(patched)
	default: // strategic merge: the API server shows the patch
		m := map[string]any{}
		errs, err := kjson.UnmarshalStrict(patch, &m)
		if err != nil {
			return nil, nil // as above
		}
		strictErrs, value = errs, fmt.Sprintf("%+v", m)
	}
	if len(strictErrs) == 0 {
		return nil, nil
	}
	if fieldValidation == metav1.FieldValidationStrict {
		st := apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), value, runtime.NewStrictDecodingError(strictErrs).Error()),
		}).ErrStatus
		return nil, &Error{Code: st.Code, Reason: st.Reason, Message: st.Message, Details: st.Details}
	}
	warnings := make([]string, 0, len(strictErrs))
	for _, e := range strictErrs {
		warnings = append(warnings, e.Error())
	}
	return warnings, nil
}
