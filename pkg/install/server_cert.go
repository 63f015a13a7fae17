package install

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// The serving certificate's lifetime, and how long before its end install
// replaces it. The CA (certutil: ten years) signs only this certificate; its
// key is never stored, so a new certificate comes with a new CA.
const (
	serverCertValidity = 5 * 365 * 24 * time.Hour
	serverCertRenewal  = 90 * 24 * time.Hour
)

// ServerTLS is the server's serving certificate and key and the CA that
// issued it, PEM encoded.
type ServerTLS struct {
	CAPEM, CertPEM, KeyPEM []byte
}

// ServerDNSNames are the names of the server's Service, which its
// certificate holds.
func ServerDNSNames() []string {
	svc := tenantapi.ServerName + "." + tenantapi.ServerNamespace
	return []string{tenantapi.ServerName, svc, svc + ".svc", svc + ".svc.cluster.local"}
}

// NewServerTLS issues a new CA and, from it, a serving certificate for
// ServerDNSNames (ECDSA P-256).
func NewServerTLS() (*ServerTLS, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the server CA key: %w", err)
	}
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "kubectl-zoo server CA"}, caKey)
	if err != nil {
		return nil, fmt.Errorf("issue the server CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the serving key: %w", err)
	}
	leaf, err := signServing(ca, caKey, key.Public())
	if err != nil {
		return nil, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encode the serving key: %w", err)
	}
	caPEM, err := certutil.EncodeCertificates(ca)
	if err != nil {
		return nil, err
	}
	leafPEM, err := certutil.EncodeCertificates(leaf)
	if err != nil {
		return nil, err
	}
	return &ServerTLS{CAPEM: caPEM, CertPEM: leafPEM, KeyPEM: keyPEM}, nil
}

func signServing(ca *x509.Certificate, caKey crypto.Signer, pub crypto.PublicKey) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, fmt.Errorf("serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: tenantapi.ServerName + "." + tenantapi.ServerNamespace + ".svc"},
		DNSNames:     ServerDNSNames(),
		NotBefore:    now.Add(-5 * time.Minute).UTC(),
		NotAfter:     now.Add(serverCertValidity).UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
	if err != nil {
		return nil, fmt.Errorf("issue the serving certificate: %w", err)
	}
	return x509.ParseCertificate(der)
}

// ServerTLSFromSecret returns the certificate a ServerTLSSecret holds if it
// is still good at now: the key matches the certificate, the CA verifies it
// as a serving certificate for every name of ServerDNSNames, and it is valid
// for longer than the renewal margin. Otherwise it returns why not.
func ServerTLSFromSecret(s *corev1.Secret, now time.Time) (*ServerTLS, error) {
	t := &ServerTLS{CAPEM: s.Data[tenantapi.ServerCAKey], CertPEM: s.Data[corev1.TLSCertKey], KeyPEM: s.Data[corev1.TLSPrivateKeyKey]}
	pair, err := tls.X509KeyPair(t.CertPEM, t.KeyPEM)
	if err != nil {
		return nil, fmt.Errorf("certificate and key: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	if leaf.NotAfter.Sub(now) < serverCertRenewal {
		return nil, fmt.Errorf("the certificate expires at %s", leaf.NotAfter.Format(time.RFC3339))
	}
	cas, err := certutil.ParseCertsPEM(t.CAPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tenantapi.ServerCAKey, err)
	}
	pool := x509.NewCertPool()
	for _, ca := range cas {
		pool.AddCert(ca)
	}
	for _, name := range ServerDNSNames() {
		_, err := leaf.Verify(x509.VerifyOptions{
			DNSName: name, Roots: pool, CurrentTime: now.Add(serverCertRenewal),
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		})
		if err != nil {
			return nil, fmt.Errorf("the certificate is not good for %s: %w", name, err)
		}
	}
	return t, nil
}
