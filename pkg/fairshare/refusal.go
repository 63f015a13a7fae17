package fairshare

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Status is the Kubernetes Status of ref: 429 TooManyRequests with
// details.retryAfterSeconds, as the API server answers.
func (r Refusal) Status() *metav1.Status {
	var msg string
	switch r.Reason {
	case ReasonInflight:
		msg = fmt.Sprintf("too many requests at once: this tenant's fair share is %d requests in flight", r.Limits.MaxInflight)
	default:
		msg = fmt.Sprintf("too many requests: this tenant's fair share is %d per second (burst %d)", r.Limits.QPS, r.Limits.Burst)
	}
	st := apierrors.NewTooManyRequests(msg+"; retry later", r.RetryAfterSeconds()).ErrStatus
	st.Kind, st.APIVersion = "Status", "v1"
	return &st
}

// WriteRefusal answers a refused request: 429, a Retry-After header (which
// client-go waits for before it retries) and the Status as JSON (every
// client decodes a JSON Status, whatever it asked for).
func WriteRefusal(w http.ResponseWriter, ref Refusal) {
	body, _ := json.Marshal(ref.Status())
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(ref.RetryAfterSeconds()))
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(body)
}
