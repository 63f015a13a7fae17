package zooserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// testCA is a CA that signs client certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t testing.TB) *testCA {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// client signs a client certificate valid from notBefore to notAfter.
func (ca *testCA) client(t testing.TB, cn string, orgs []string, notBefore, notAfter time.Time) *x509.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert
}

// fakeTokens accepts the token "good".
type fakeTokens struct{}

func (fakeTokens) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	if token != "good" {
		return nil, false, nil
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:acme-default:builder"}}, true, nil
}

func newTestAuthn(t testing.TB, ca *testCA) *authn {
	static, err := dynamiccertificates.NewStaticCAContent("test", ca.pem)
	require.NoError(t, err)
	a := &authn{}
	a.init([]dynamiccertificates.CAContentProvider{static}, fakeTokens{})
	return a
}

// request is a request on the connection of ctx with the certificate (nil:
// none) and bearer token (empty: none).
func request(ctx context.Context, cert *x509.Certificate, token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api", nil).WithContext(ctx)
	if cert != nil {
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// TestConnCacheAgreesWithTheLibrary: for every kind of credential, the
// server's authentication (a connection's verified certificate reused) and
// the API server's union of authenticators give the same answer, on the
// first request of a connection and on the next ones.
func TestConnCacheAgreesWithTheLibrary(t *testing.T) {
	ca, other := newTestCA(t), newTestCA(t)
	now := time.Now()
	cases := []struct {
		name  string
		cert  *x509.Certificate
		token string
	}{
		{"certificate", ca.client(t, "zoo:acme:admin", []string{"zoo:tenant:acme"}, now.Add(-time.Minute), now.Add(time.Hour)), ""},
		{"certificate of another CA", other.client(t, "zoo:acme:admin", []string{"zoo:tenant:acme"}, now.Add(-time.Minute), now.Add(time.Hour)), ""},
		{"expired certificate", ca.client(t, "zoo:acme:admin", []string{"zoo:tenant:acme"}, now.Add(-2*time.Hour), now.Add(-time.Hour)), ""},
		{"certificate not valid yet", ca.client(t, "zoo:acme:admin", []string{"zoo:tenant:acme"}, now.Add(time.Hour), now.Add(2*time.Hour)), ""},
		{"certificate of another CA and a good token", other.client(t, "zoo:acme:x", nil, now.Add(-time.Minute), now.Add(time.Hour)), "good"},
		{"certificate and a good token", ca.client(t, "zoo:beta:admin", []string{"zoo:tenant:beta"}, now.Add(-time.Minute), now.Add(time.Hour)), "good"},
		{"good token", nil, "good"},
		{"bad token", nil, "bad"},
		{"nothing", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAuthn(t, ca)
			conn := withConnCache(context.Background(), nil)
			want, wantOK, wantErr := a.union.AuthenticateRequest(request(context.Background(), tc.cert, tc.token))
			for i := range 3 {
				got, ok, err := a.AuthenticateRequest(request(conn, tc.cert, tc.token))
				assert.Equal(t, wantOK, ok, "request %d", i)
				assert.Equal(t, wantErr != nil, err != nil, "request %d: %v / %v", i, wantErr, err)
				if wantOK {
					assert.Equal(t, want.User.GetName(), got.User.GetName(), "request %d", i)
					assert.Equal(t, want.User.GetGroups(), got.User.GetGroups(), "request %d", i)
				}
			}
		})
	}
}

// TestConnCacheVerifiesAgain: a connection's certificate is verified again
// when the CAs change (and then refused if its CA is gone), and never
// reused for another certificate.
func TestConnCacheVerifiesAgain(t *testing.T) {
	ca, other := newTestCA(t), newTestCA(t)
	now := time.Now()
	cert := ca.client(t, "zoo:acme:admin", []string{"zoo:tenant:acme"}, now.Add(-time.Minute), now.Add(time.Hour))
	static, err := dynamiccertificates.NewStaticCAContent("test", ca.pem)
	require.NoError(t, err)
	swappable := &swappableCA{CAContentProvider: static}
	a := &authn{}
	a.init([]dynamiccertificates.CAContentProvider{swappable}, fakeTokens{})
	conn := withConnCache(context.Background(), nil)
	_, ok, _ := a.AuthenticateRequest(request(conn, cert, ""))
	require.True(t, ok)

	moved, err := dynamiccertificates.NewStaticCAContent("test", other.pem)
	require.NoError(t, err)
	swappable.CAContentProvider = moved
	_, ok, _ = a.AuthenticateRequest(request(conn, cert, ""))
	assert.True(t, ok, "until the CA change is announced, the verified answer stands")
	caListener{a}.Enqueue()
	_, ok, err = a.AuthenticateRequest(request(conn, cert, ""))
	assert.False(t, ok, "after the CA changed, the certificate is verified again and refused")
	assert.Error(t, err)

	foreign := other.client(t, "zoo:beta:admin", []string{"zoo:tenant:beta"}, now.Add(-time.Minute), now.Add(time.Hour))
	resp, ok, _ := a.AuthenticateRequest(request(conn, foreign, ""))
	require.True(t, ok)
	assert.Equal(t, "zoo:beta:admin", resp.User.GetName(), "another certificate is never answered from the cache")
}

// swappableCA is a CA provider whose content the test replaces.
type swappableCA struct {
	dynamiccertificates.CAContentProvider
}

// BenchmarkAuthenticateCertificate compares the API server's x509
// authenticator verifying every request with the server's verifying once
// per connection.
func BenchmarkAuthenticateCertificate(b *testing.B) {
	ca := newTestCA(b)
	cert := ca.client(b, "zoo:acme:admin", []string{"zoo:tenant:acme"}, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	a := newTestAuthn(b, ca)
	b.Run("library, every request", func(b *testing.B) {
		r := request(context.Background(), cert, "")
		for b.Loop() {
			if _, ok, err := a.union.AuthenticateRequest(r); !ok {
				b.Fatal(err)
			}
		}
	})
	b.Run("once per connection", func(b *testing.B) {
		r := request(withConnCache(context.Background(), nil), cert, "")
		for b.Loop() {
			if _, ok, err := a.AuthenticateRequest(r); !ok {
				b.Fatal(err)
			}
		}
	})
}
