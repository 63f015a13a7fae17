package localproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"

	"k8s.io/client-go/rest"
)

// Server serves a Proxy on a local address.
type Server struct {
	proxy *Proxy
	addr  string
	ln    net.Listener
	srv   *http.Server
	cert  *tls.Certificate
	ca    []byte
	done  chan error
}

// NewServer returns a Server for p on addr ("127.0.0.1:0" picks a free port)
// that makes a self-signed serving certificate when it starts.
func NewServer(p *Proxy, addr string) *Server {
	return &Server{proxy: p, addr: addr, done: make(chan error, 1)}
}

// NewServerWithCertificate is NewServer with a given serving certificate and
// the PEM certificate clients trust (Certificate of an earlier Server: a
// restarted proxy that its clients still trust).
func NewServerWithCertificate(p *Proxy, addr string, cert tls.Certificate, caPEM []byte) *Server {
	s := NewServer(p, addr)
	s.cert, s.ca = &cert, caPEM
	return s
}

// Certificate returns the serving certificate and its PEM (after Start).
func (s *Server) Certificate() (tls.Certificate, []byte) {
	if s.cert == nil {
		return tls.Certificate{}, nil
	}
	return *s.cert, s.ca
}

// Start listens and serves HTTPS in the background, with a self-signed
// certificate made for this run (CACertPEM).
func (s *Server) Start() error {
	if s.cert == nil {
		cert, caPEM, err := selfSigned()
		if err != nil {
			return err
		}
		s.cert, s.ca = &cert, caPEM
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.addr, err)
	}
	s.ln = ln
	s.srv = NewHTTPServer(s.proxy, &tls.Config{Certificates: []tls.Certificate{*s.cert}, MinVersion: tls.VersionTLS12})
	go func() {
		err := s.srv.ServeTLS(ln, "", "")
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return nil
}

// Addr returns the bound address ("127.0.0.1:41234").
func (s *Server) Addr() string {
	if s.ln == nil {
		return s.addr
	}
	return s.ln.Addr().String()
}

// URL returns the base URL clients use.
func (s *Server) URL() string { return "https://" + s.Addr() }

// CACertPEM returns the PEM certificate clients must trust (after Start).
func (s *Server) CACertPEM() []byte { return s.ca }

// ClientConfig returns a REST config for local clients of the server
// presenting token (after Start).
func (s *Server) ClientConfig(token string) *rest.Config {
	return &rest.Config{Host: s.URL(), BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: s.ca}}
}

// Done receives the error serving ended with (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting connections, ends every watch, and waits for
// in-flight requests until ctx ends (DefaultShutdownGrace if ctx has no
// deadline); then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultShutdownGrace)
		defer cancel()
	}
	s.proxy.Close()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}
