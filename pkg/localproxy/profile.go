package localproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"
)

// ValidateProfileAddress checks an address for ProfileServer: host:port with
// a loopback host (127.0.0.0/8, ::1 or localhost). Profiles show the
// proxy's memory, which holds the upstream credentials and the local token,
// so they are never served beyond the machine.
func ValidateProfileAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("profile address %q: %w", addr, err)
	}
	if port == "" {
		return fmt.Errorf("profile address %q has no port (use :0 for a free one)", addr)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("profile address %q is not a loopback address: profiles are only served on 127.0.0.1, ::1 or localhost", addr)
	}
	return nil
}

// ProfileServer serves net/http/pprof on a loopback listener of its own,
// apart from the API port that tenants use.
type ProfileServer struct {
	ln  net.Listener
	srv *http.Server
}

// StartProfileServer validates addr (ValidateProfileAddress), listens on it
// and serves /debug/pprof/ in the background.
func StartProfileServer(addr string) (*ProfileServer, error) {
	if err := ValidateProfileAddress(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s := &ProfileServer{ln: ln, srv: &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return s, nil
}

// URL returns the profiles' base URL ("http://127.0.0.1:6060/debug/pprof/").
func (s *ProfileServer) URL() string { return "http://" + s.ln.Addr().String() + "/debug/pprof/" }

// Shutdown stops serving profiles.
func (s *ProfileServer) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }
