package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// The zoo CA signs tenant users' client certificates (`kubectl zoo cert
// issue --signer zoo`) for clusters whose own signer issues none. Its key
// lives only in ZooCASecret, which only those who may read Secrets in
// ServerNamespace can read (cluster administrators: the server's own
// ServiceAccount may not); the server gets the certificate alone, from
// ZooCAConfigMap, as its --client-ca-file.
const (
	// ZooCASecret holds the zoo CA's certificate and key (tls.crt, tls.key).
	ZooCASecret = "zoo-client-ca"
	// ZooCAConfigMap publishes the zoo CA's certificate (key ca.crt).
	ZooCAConfigMap = "zoo-client-ca"
	// zooCARenewal: install issues a new zoo CA when the old one ends within
	// this margin (which invalidates every certificate it signed).
	zooCARenewal = 365 * 24 * time.Hour
)

// ZooCA is the zoo CA's certificate and key, PEM encoded.
type ZooCA struct {
	CertPEM, KeyPEM []byte
}

// NewZooCA issues a new zoo CA (ECDSA P-256, ten years).
func NewZooCA() (*ZooCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the zoo CA key: %w", err)
	}
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "kubectl-zoo client CA"}, key)
	if err != nil {
		return nil, fmt.Errorf("issue the zoo CA: %w", err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encode the zoo CA key: %w", err)
	}
	certPEM, err := certutil.EncodeCertificates(ca)
	if err != nil {
		return nil, err
	}
	return &ZooCA{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// ParseZooCA returns the CA certificate and the key of a ZooCA.
func (z *ZooCA) ParseZooCA() (*x509.Certificate, any, error) {
	pair, err := tls.X509KeyPair(z.CertPEM, z.KeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("zoo CA certificate and key: %w", err)
	}
	ca, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, nil, fmt.Errorf("zoo CA certificate: %w", err)
	}
	if !ca.IsCA {
		return nil, nil, fmt.Errorf("the zoo CA certificate is no CA")
	}
	return ca, pair.PrivateKey, nil
}

// ZooCAFromSecret returns the zoo CA a ZooCASecret holds if it is still good
// at now (a CA whose key matches, valid for longer than the renewal margin).
func ZooCAFromSecret(s *corev1.Secret, now time.Time) (*ZooCA, error) {
	z := &ZooCA{CertPEM: s.Data[corev1.TLSCertKey], KeyPEM: s.Data[corev1.TLSPrivateKeyKey]}
	ca, _, err := z.ParseZooCA()
	if err != nil {
		return nil, err
	}
	if ca.NotAfter.Sub(now) < zooCARenewal {
		return nil, fmt.Errorf("the zoo CA expires at %s", ca.NotAfter.Format(time.RFC3339))
	}
	return z, nil
}
