package translate

import (
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Error is the typed error of every translation. The proxy turns it into the
// Kubernetes Status the tenant sees with ToStatus (or Error.Status).
type Error struct {
	// Code is the HTTP status code: 400, 403, 404, 415 or 422.
	Code int32
	// Reason is the machine-readable Status reason.
	Reason metav1.StatusReason
	// Message is the human-readable message, in the tenant's terms.
	Message string
	// Details names the object the error is about, in the tenant's terms.
	Details *metav1.StatusDetails
	// Err is the underlying error, if any.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Status returns the Kubernetes Status for the error.
func (e *Error) Status() *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  e.Error(),
		Reason:   e.Reason,
		Details:  e.Details,
		Code:     e.Code,
	}
}

// ToStatus converts any error returned by this package into the Status the
// proxy answers with. Errors that are not an *Error become 500 InternalError.
func ToStatus(err error) *metav1.Status {
	if err == nil {
		return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: http.StatusOK}
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Status()
	}
	return (&Error{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: "translation failed", Err: err}).Status()
}

// ErrNotTenants is wrapped by every error about an upstream object or name that
// does not belong to the tenant. Such objects must look absent (404).
var ErrNotTenants = errors.New("not the tenant's")

func forbidden(gr schema.GroupResource, name, reason string) *Error {
	msg := reason
	if gr.Resource != "" {
		msg = fmt.Sprintf("%s %q is forbidden: %s", gr.String(), name, reason)
	}
	return &Error{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: msg,
		Details: &metav1.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}}
}

func notFound(gr schema.GroupResource, name string) *Error {
	return &Error{Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: fmt.Sprintf("%s %q not found", gr.String(), name),
		Details: &metav1.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}, Err: ErrNotTenants}
}

func badRequest(format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: err.Error(), Err: errors.Unwrap(err)}
}

func unsupportedMedia(contentType string) *Error {
	return &Error{Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of type %q cannot be translated", contentType)}
}

// invalid builds a 422 Invalid error about one field of an object.
func invalid(kind, group, name, field, value, detail string) *Error {
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	cause := fmt.Sprintf("Invalid value: %q: %s", value, detail)
	return &Error{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
		Message: fmt.Sprintf("%s %q is invalid: %s: %s", qualified, name, field, cause),
		Details: &metav1.StatusDetails{Name: name, Group: group, Kind: kind, Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueInvalid, Message: cause, Field: field}}}}
}
