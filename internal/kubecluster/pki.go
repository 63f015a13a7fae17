package kubecluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the paths of the certificates and keys a cluster runs with. One CA
// signs everything: serving certificates, client certificates, and (as the
// controller-manager's cluster signing CA) the CSRs that the Kubernetes CSR
// API approves for kubernetes.io/kube-apiserver-client, so certificates it
// issues authenticate against the same apiserver.
type pki struct {
	dir string
	ca  *keyPair
}

type keyPair struct {
	cert    *x509.Certificate
	key     crypto.Signer
	CertPEM []byte
	KeyPEM  []byte
}

const certValidity = 10 * 365 * 24 * time.Hour

func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ca, err := newKeyPair(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "kubectl-zoo-test-ca"},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("generate CA: %w", err)
	}
	p := &pki{dir: dir, ca: ca}
	if err := p.write("ca", ca); err != nil {
		return nil, err
	}
	return p, nil
}

// path returns the file name of a certificate ("name.crt") or key ("name.key").
func (p *pki) path(file string) string { return filepath.Join(p.dir, file) }

// serving issues a serving certificate for loopback and the in-cluster names.
func (p *pki) serving(name string, dnsNames ...string) error {
	kp, err := newKeyPair(&x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    append([]string{"localhost"}, dnsNames...),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}, p.ca)
	if err != nil {
		return fmt.Errorf("generate serving certificate %s: %w", name, err)
	}
	return p.write(name, kp)
}

// client issues a client certificate for user in groups.
func (p *pki) client(file, user string, groups ...string) (*keyPair, error) {
	kp, err := newKeyPair(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, p.ca)
	if err != nil {
		return nil, fmt.Errorf("generate client certificate %s: %w", user, err)
	}
	return kp, p.write(file, kp)
}

// serviceAccountKey writes the RSA key pair that signs ServiceAccount tokens
// (sa.key, sa.pub).
func (p *pki) serviceAccountKey() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.path("sa.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(p.path("sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600)
}

func (p *pki) write(name string, kp *keyPair) error {
	if err := os.WriteFile(p.path(name+".crt"), kp.CertPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(p.path(name+".key"), kp.KeyPEM, 0o600)
}

// newKeyPair creates a key and a certificate from template, signed by parent
// (self-signed when parent is nil).
func newKeyPair(template *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	template.SerialNumber = serial
	template.NotBefore = time.Now().Add(-time.Hour)
	template.NotAfter = time.Now().Add(certValidity)
	signerCert, signerKey := template, crypto.Signer(key)
	if parent != nil {
		signerCert, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, signerCert, key.Public(), signerKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &keyPair{
		cert:    cert,
		key:     key,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}
