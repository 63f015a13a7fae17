package localproxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// writeStatus answers with a Kubernetes Status.
func writeStatus(w http.ResponseWriter, st *metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
		st.Code = int32(code)
	}
	b, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// failureStatus is the Status of an upstream failure with code whose body
// is not a JSON Status (text such as "404 page not found", or nothing): the
// one client-go makes of such an answer (apierrors.NewGenericServerResponse),
// less the text, which may name upstream objects the translator cannot read.
// A Retry-After header in seconds is kept in its details.
func failureStatus(code int, verb string, header http.Header) *metav1.Status {
	retryAfter, _ := strconv.Atoi(header.Get("Retry-After"))
	st := apierrors.NewGenericServerResponse(code, verb, schema.GroupResource{}, "", "", retryAfter, false).ErrStatus
	return &st
}

// badRequest is a 400 Status.
func badRequest(msg string) *metav1.Status {
	return &metav1.Status{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: msg}
}

// unavailable is the 503 Status of an unreachable upstream.
func unavailable(host string, err error) *metav1.Status {
	return &metav1.Status{Code: http.StatusServiceUnavailable, Reason: metav1.StatusReasonServiceUnavailable,
		Message: "the upstream cluster at " + host + " is unreachable: " + err.Error()}
}

// recorder remembers the status code for the log and keeps the Flusher and
// Hijacker of the writer it wraps.
type recorder struct {
	http.ResponseWriter
	code    int
	written bool
}

// WriteHeader records the code.
func (r *recorder) WriteHeader(code int) {
	if !r.written {
		r.code, r.written = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write marks the header as written.
func (r *recorder) Write(b []byte) (int, error) {
	r.written = true
	return r.ResponseWriter.Write(b)
}

// Flush flushes the underlying writer.
func (r *recorder) Flush() {
	r.written = true
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hijacks the underlying connection (upgrades).
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the response writer cannot be hijacked")
	}
	r.code, r.written = http.StatusSwitchingProtocols, true
	return h.Hijack()
}

// Unwrap returns the wrapped writer (http.ResponseController).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// lazyWriter writes the status code only with the first byte, so that a
// translation that fails before writing anything can still answer with a
// Status of its own.
type lazyWriter struct {
	w     http.ResponseWriter
	code  int
	wrote bool
}

// Write writes the header first if needed.
func (l *lazyWriter) Write(b []byte) (int, error) {
	if !l.wrote {
		l.wrote = true
		l.w.WriteHeader(l.code)
	}
	return l.w.Write(b)
}

// Flush pushes written data to the client.
func (l *lazyWriter) Flush() {
	if !l.wrote {
		return
	}
	if f, ok := l.w.(http.Flusher); ok {
		f.Flush()
	}
}
