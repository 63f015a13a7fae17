package kubecluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// ServingPair is a serving certificate for loopback, signed by a CA of its
// own (not the cluster's), written to files a server reads.
type ServingPair struct {
	// CAPEM is the CA clients trust.
	CAPEM []byte
	// CertFile and KeyFile are the certificate (127.0.0.1, ::1, localhost
	// and dnsNames) and its key (PEM).
	CertFile, KeyFile string
}

// NewServingPair writes a new CA and a serving certificate signed by it to
// dir, for a server on loopback (and dnsNames).
func NewServingPair(dir string, dnsNames ...string) (*ServingPair, error) {
	p, err := newPKI(dir)
	if err != nil {
		return nil, err
	}
	if err := p.serving("serving", dnsNames...); err != nil {
		return nil, err
	}
	return &ServingPair{CAPEM: p.ca.CertPEM, CertFile: p.path("serving.crt"), KeyFile: p.path("serving.key")}, nil
}

var csrCount atomic.Int64

// SignClientCertificate has the cluster sign a client certificate for cn in
// orgs through the CSR API (signer kubernetes.io/kube-apiserver-client,
// approved with the admin's credential), as a platform administrator issues
// one, and returns the certificate and its key (PEM).
func (c *Cluster) SignClientCertificate(ctx context.Context, cn string, orgs ...string) (certPEM, keyPEM []byte, err error) {
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		return nil, nil, err
	}
	name := fmt.Sprintf("kubecluster-client-%d-%d", os.Getpid(), csrCount.Add(1))
	csr, err := client.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("CSR for %s: %w", cn, err)
	}
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test", Message: "approved by the test cluster's admin",
	})
	if _, err := client.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, name, csr, metav1.UpdateOptions{}); err != nil {
		return nil, nil, fmt.Errorf("approving the CSR for %s: %w", cn, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := client.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			certPEM = got.Status.Certificate
		}
		return len(certPEM) > 0, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("the controller-manager never signed the CSR for %s: %w", cn, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// SelfSignedClientCertificate is a client certificate for cn in orgs that
// no CA of the cluster signed (what an attacker can make).
func SelfSignedClientCertificate(cn string, orgs ...string) (certPEM, keyPEM []byte, err error) {
	kp, err := newKeyPair(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: orgs},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	return kp.CertPEM, kp.KeyPEM, nil
}
