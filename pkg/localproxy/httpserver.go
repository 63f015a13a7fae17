package localproxy

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// NewHTTPServer is the front door of `serve` and of the server: handler
// behind panic recovery, with the header and idle timeouts both use.
//
// net/http's own error log is discarded: it would carry every failed TLS
// handshake of any client that reaches the port. What matters of it, a
// handler's panic, is logged by WithPanicRecovery instead.
func NewHTTPServer(handler http.Handler, tlsConfig *tls.Config) *http.Server {
	return &http.Server{
		Handler:           WithPanicRecovery(handler),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
}

// WithPanicRecovery logs a panic of handler with its stack and the request
// (through apimachinery's HandleCrash, as the API server's filter of that
// name does), then lets it go on to net/http, which resets the stream
// (HTTP/2) or closes the connection (HTTP/1.1): a client never takes a
// half-written answer for a whole one, and the process keeps serving.
// http.ErrAbortHandler, the sentinel of a deliberate abort, is not logged.
//
// k8s.io/apiserver's filters.WithPanicRecovery itself is not used: its
// package brings in the etcd client and the OpenTelemetry SDK, 53 packages
// the binary does not otherwise need, for these few lines.
func WithPanicRecovery(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer utilruntime.HandleCrashWithContext(r.Context(), func(ctx context.Context, p any) {
			if p == http.ErrAbortHandler { //nolint:errorlint // a sentinel panic value, compared as net/http does
				return
			}
			klog.FromContext(ctx).Error(nil, "a request made kubectl-zoo panic; its connection is reset",
				"method", r.Method, "uri", r.RequestURI, "remote", r.RemoteAddr)
		})
		handler.ServeHTTP(w, r)
	})
}
