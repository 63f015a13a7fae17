package zooserver

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// A TLS connection's client certificate cannot change while it lives (the
// server allows no renegotiation), so its chain is verified on the
// connection's first request and the answer reused for the next ones — as
// long as the CAs have not changed and the certificate has not expired.
// Verifying a chain costs about 120 µs of CPU (an ECDSA signature check),
// the largest part of what the server adds per request; see
// BenchmarkAuthenticateCertificate.

type connKey struct{}

// connCache is one connection's verified certificate.
type connCache struct {
	mu         sync.Mutex
	leaf       *x509.Certificate
	generation uint64
	resp       *authenticator.Response
}

// withConnCache is the http.Server's ConnContext: every connection gets an
// empty cache.
func withConnCache(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &connCache{})
}

// verifiedLeafOf returns the client certificate of r when this connection
// verified it against the client CAs (AuthenticateRequest) and it names
// user: a certificate's user is served by the certificate's record only when
// it came with that certificate. Anything else — a token whose
// authenticator returned such a name, a certificate that failed
// verification (the token authenticated the request), another certificate's
// name — yields why instead.
func verifiedLeafOf(r *http.Request, user string) (leaf *x509.Certificate, why string) {
	cc, _ := r.Context().Value(connKey{}).(*connCache)
	if cc == nil || r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, "a certificate's user without its certificate"
	}
	cc.mu.Lock()
	verified := cc.resp != nil && cc.leaf == r.TLS.PeerCertificates[0]
	cc.mu.Unlock()
	switch leaf := r.TLS.PeerCertificates[0]; {
	case !verified:
		return nil, "a certificate's user is served only with that certificate, verified against the cluster's client CA"
	case leaf.Subject.CommonName != user:
		return nil, "the certificate names another user"
	default:
		return leaf, ""
	}
}

// AuthenticateRequest authenticates r as the API server's union of the x509
// and bearer-token authenticators does — the certificate first, then the
// token — reusing the connection's verified certificate.
func (a *authn) AuthenticateRequest(r *http.Request) (*authenticator.Response, bool, error) {
	cc, _ := r.Context().Value(connKey{}).(*connCache)
	if cc == nil || r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return a.union.AuthenticateRequest(r)
	}
	leaf, generation, now := r.TLS.PeerCertificates[0], a.caGeneration.Load(), time.Now()
	cc.mu.Lock()
	resp := cc.resp
	fresh := resp != nil && cc.leaf == leaf && cc.generation == generation
	cc.mu.Unlock()
	if fresh && now.After(leaf.NotBefore) && now.Before(leaf.NotAfter) {
		return resp, true, nil
	}
	resp, ok, err := a.certs.AuthenticateRequest(r)
	if ok {
		cc.mu.Lock()
		cc.leaf, cc.generation, cc.resp = leaf, generation, resp
		cc.mu.Unlock()
		return resp, true, nil
	}
	// As the union does: the token next, and both errors if neither works.
	tresp, tok, terr := a.tokens.AuthenticateRequest(r)
	if tok {
		return tresp, true, nil
	}
	return nil, false, errors.Join(err, terr)
}
