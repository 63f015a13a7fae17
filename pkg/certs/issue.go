package certs

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"slices"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TTL bounds. The cluster's signer may cut a certificate shorter than asked
// (kube-controller-manager --cluster-signing-duration).
const (
	// DefaultTTL is short: the API server cannot revoke a certificate the
	// cluster's signer issued, only its end stops it there.
	DefaultTTL = 24 * time.Hour
	// MinTTL is the CSR API's lower bound of expirationSeconds.
	MinTTL = 10 * time.Minute
	// MaxTTL bounds both signers.
	MaxTTL = 365 * 24 * time.Hour
)

// Request asks for one certificate.
type Request struct {
	// Tenant and User name the identity zoo:<tenant>:<user>.
	Tenant, User string
	// Groups are tenant-local (or zoo:<tenant>:<g>) groups.
	Groups []string
	// TTL is the certificate's lifetime.
	TTL time.Duration
	// Signer is SignerKubernetes or SignerZoo.
	Signer string
	// ServerURL, when set, is the zoo server's URL in the kubeconfig instead
	// of its Service's (tenantctl.ServerURL).
	ServerURL string
	// ApprovalTimeout is how long to wait for someone else to approve the
	// CSR when the caller may not (SignerKubernetes).
	ApprovalTimeout time.Duration
	// Progress, if set, is told what is happening (an approval awaited).
	Progress func(format string, args ...any)
}

// Validate checks the request before anything is asked of the cluster and
// normalizes its groups.
func (r *Request) Validate() error {
	tenant, err := translate.NewTenant(r.Tenant)
	if err != nil {
		return err
	}
	if err := ValidateUser(r.User); err != nil {
		return err
	}
	if r.Groups, err = TenantGroups(tenant, r.Groups); err != nil {
		return err
	}
	if r.TTL < MinTTL || r.TTL > MaxTTL {
		return fmt.Errorf("--ttl must be between %s and %s, not %s", MinTTL, "8760h", r.TTL)
	}
	if !slices.Contains([]string{SignerKubernetes, SignerZoo}, r.Signer) {
		return fmt.Errorf("--signer must be %q or %q, not %q", SignerKubernetes, SignerZoo, r.Signer)
	}
	return nil
}

// Issued is an issued certificate, its key and its record.
type Issued struct {
	Record Record
	// Tenant of the certificate.
	Tenant string
	// CertPEM and KeyPEM are the certificate and its key (made here).
	CertPEM, KeyPEM []byte
}

// Issue makes a key, has the certificate for r signed and records it in
// the Tenant record. Validate r first.
func Issue(ctx context.Context, c *tenantctl.Client, r Request) (*Issued, error) {
	if r.Progress == nil {
		r.Progress = func(string, ...any) {}
	}
	tenant, err := translate.NewTenant(r.Tenant)
	if err != nil {
		return nil, err
	}
	if _, err := getTenant(ctx, c.Dynamic, r.Tenant); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate a key: %w", err)
	}
	cn, orgs := Subject(tenant, r.User, r.Groups)
	var certPEM []byte
	switch r.Signer {
	case SignerZoo:
		certPEM, err = signZoo(ctx, c, cn, orgs, key.Public(), r.TTL)
	default:
		certPEM, err = signKubernetes(ctx, c, r, cn, orgs, key)
	}
	if err != nil {
		return nil, err
	}
	cert, err := parseLeaf(certPEM)
	if err != nil {
		return nil, err
	}
	// DER sorts the members of a SET: compare the groups as sets.
	if cert.Subject.CommonName != cn || !slices.Equal(slices.Sorted(slices.Values(cert.Subject.Organization)), slices.Sorted(slices.Values(orgs))) {
		return nil, fmt.Errorf("the signer returned a certificate for %q in %v, not for %q in %v", cert.Subject.CommonName, cert.Subject.Organization, cn, orgs)
	}
	rec := Record{Serial: SerialString(cert.SerialNumber), User: r.User, Groups: r.Groups, Signer: r.Signer, NotAfter: cert.NotAfter.UTC()}
	now := time.Now()
	err = updateCertificates(ctx, c.Dynamic, r.Tenant, func(cur Certificates) (Certificates, error) {
		return cur.withRecord(rec, now), nil
	})
	if err != nil {
		// The key is dropped with this process: the certificate is unusable.
		return nil, fmt.Errorf("certificate %s was signed but not recorded, so its key is discarded: %w", rec.Serial, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encode the key: %w", err)
	}
	return &Issued{Record: rec, Tenant: r.Tenant, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// csrPEM is a certificate request for cn in orgs signed by key.
func csrPEM(cn string, orgs []string, key crypto.Signer) ([]byte, error) {
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		return nil, fmt.Errorf("certificate request: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateRequestBlockType, Bytes: der}), nil
}

// parseLeaf parses the first certificate of a PEM bundle.
func parseLeaf(certPEM []byte) (*x509.Certificate, error) {
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("the signed certificate: %w", err)
	}
	return certs[0], nil
}
