package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/types"
	remotecommandconsts "k8s.io/apimachinery/pkg/util/remotecommand"
	remotecommandserver "k8s.io/kubelet/pkg/cri/streaming/remotecommand"
	"sigs.k8s.io/kwok/pkg/log"
)

// The kubelet's defaults for an exec stream.
const (
	execIdleTimeout       = 4 * time.Hour
	execStreamCreationTTL = remotecommandconsts.DefaultStreamCreationTimeout
)

// serveFront serves the fake node's kubelet port until ctx ends.
func serveFront(ctx context.Context, f frontFlags, kwokURL string) error {
	handler, err := newFront(kwokURL, &sandbox{dir: f.sandboxDir})
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: f.listen, Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.FromContext(ctx).Info("Serving the kubelet port: exec from the sandbox, the rest from kwok",
		"address", f.listen, "kwok", kwokURL, "sandbox", f.sandboxDir)
	err = srv.ListenAndServeTLS(f.certFile, f.keyFile)
	if errors.Is(err, http.ErrServerClosed) {
		return ctx.Err()
	}
	return fmt.Errorf("kubelet port %s: %w", f.listen, err)
}

// newFront routes every path under /exec/ to the sandbox (or to a 404) and
// every other path to kwok's server at kwokURL. The mux cleans paths before
// it routes them, so no spelling of an exec path reaches kwok; kwok has no
// exec configured besides.
func newFront(kwokURL string, sb *sandbox) (http.Handler, error) {
	target, err := url.Parse(kwokURL)
	if err != nil {
		return nil, fmt.Errorf("kwok's address: %w", err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1, // logs -f, attach and port-forward stream
	}
	exec := func(w http.ResponseWriter, r *http.Request) { serveExec(w, r, sb) }
	mux := http.NewServeMux()
	mux.Handle("/", proxy)
	mux.HandleFunc("/exec/{namespace}/{pod}/{container}", exec)
	mux.HandleFunc("/exec/{namespace}/{pod}/{uid}/{container}", exec)
	mux.HandleFunc("/exec/", http.NotFound)
	return mux, nil
}

// serveExec serves one exec request as the kubelet does, with the sandbox
// as the container runtime.
func serveExec(w http.ResponseWriter, r *http.Request, sb *sandbox) {
	opts, err := remotecommandserver.NewOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	pod := r.PathValue("namespace") + "/" + r.PathValue("pod")
	remotecommandserver.ServeExec(w, r, sb, pod, types.UID(r.PathValue("uid")), r.PathValue("container"),
		r.URL.Query()["command"], opts, execIdleTimeout, execStreamCreationTTL,
		remotecommandconsts.SupportedStreamingProtocols)
}
