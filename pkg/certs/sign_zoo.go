package certs

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// signZoo signs with the zoo CA, in this process: the caller must be
// allowed to read the Secret with the CA's key (a cluster administrator).
func signZoo(ctx context.Context, c Client, subject pkix.Name, pub crypto.PublicKey, ttl time.Duration) ([]byte, error) {
	s, err := c.Kube.CoreV1().Secrets(tenantapi.ServerNamespace).Get(ctx, ZooCASecret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("no zoo CA (secret %s/%s): run `kubectl zoo install --server` first, or use --signer kubernetes",
			tenantapi.ServerNamespace, ZooCASecret)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("--signer zoo signs with the zoo CA's key, which you may not read (get secret %s/%s)",
			tenantapi.ServerNamespace, ZooCASecret)
	case err != nil:
		return nil, fmt.Errorf("read the zoo CA: %w", err)
	}
	z := &ZooCA{CertPEM: s.Data["tls.crt"], KeyPEM: s.Data["tls.key"]}
	ca, caKey, err := z.ParseZooCA()
	if err != nil {
		return nil, err
	}
	return signSubjectWithCA(ca, caKey, subject, pub, time.Now(), ttl)
}

// SignWithCA issues a client certificate for cn in orgs from ca, valid from
// a minute before now for ttl (never beyond the CA's end), with a random
// 128-bit serial.
func SignWithCA(ca *x509.Certificate, caKey any, cn string, orgs []string, pub crypto.PublicKey, now time.Time, ttl time.Duration) ([]byte, error) {
	return signSubjectWithCA(ca, caKey, pkix.Name{CommonName: cn, Organization: orgs}, pub, now, ttl)
}

// signSubjectWithCA is SignWithCA for a whole Subject.
func signSubjectWithCA(ca *x509.Certificate, caKey any, subject pkix.Name, pub crypto.PublicKey, now time.Time, ttl time.Duration) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("serial: %w", err)
	}
	notAfter := now.Add(ttl)
	if notAfter.After(ca.NotAfter) {
		notAfter = ca.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Minute).UTC(),
		NotAfter:     notAfter.UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign with the zoo CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return certutil.EncodeCertificates(cert)
}
