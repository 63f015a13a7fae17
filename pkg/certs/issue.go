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

	"k8s.io/apimachinery/pkg/types"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TTL bounds. The cluster's signer may cut a certificate shorter than asked
// (kube-controller-manager --cluster-signing-duration).
const (
	// DefaultTTL: a revocation takes effect everywhere without waiting
	// for the end (the zoo server by its record, the API server by the
	// certificate's grant, grant.go).
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
	// of its Service's (tenantapi.ServerURL).
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
func Issue(ctx context.Context, c Client, r Request) (*Issued, error) {
	if r.Progress == nil {
		r.Progress = func(string, ...any) {}
	}
	tenant, err := translate.NewTenant(r.Tenant)
	if err != nil {
		return nil, err
	}
	u, err := getTenant(ctx, c.Dynamic, r.Tenant)
	if err != nil {
		return nil, err
	}
	before, err := CertificatesOf(u)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate a key: %w", err)
	}
	cn, orgs := Subject(tenant, r.User, r.Groups)
	if r.Signer == SignerKubernetes { // grant.go: a user of its own, in no group
		if cn, err = newCertUser(tenant); err != nil {
			return nil, err
		}
		orgs = nil
	}
	subject := pkix.Name{CommonName: cn, Organization: orgs, OrganizationalUnit: []string{TenantUIDUnit(u.GetUID())}}
	var certPEM []byte
	switch r.Signer {
	case SignerZoo:
		certPEM, err = signZoo(ctx, c, subject, key.Public(), r.TTL)
	default:
		certPEM, err = signKubernetes(ctx, c, r, subject, key)
	}
	if err != nil {
		return nil, err
	}
	cert, err := parseLeaf(certPEM)
	if err != nil {
		return nil, err
	}
	if err := checkSubject(cert, subject); err != nil {
		return nil, err
	}
	rec, err := record(ctx, c, r, cert, u.GetUID(), before.userRevocations(r.User))
	if err != nil {
		return nil, err
	}
	if r.Signer == SignerKubernetes {
		if err := grant(ctx, c, r.Tenant, cn, rec); err != nil {
			return nil, err
		}
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encode the key: %w", err)
	}
	return &Issued{Record: rec, Tenant: r.Tenant, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// checkSubject checks that the signer certified what was asked: the CN, the
// O (DER sorts the members of a SET: compared as sets) and, when the signer
// kept it, the OU that names the tenant record.
func checkSubject(cert *x509.Certificate, want pkix.Name) error {
	got := cert.Subject
	if got.CommonName != want.CommonName || !slices.Equal(slices.Sorted(slices.Values(got.Organization)), slices.Sorted(slices.Values(want.Organization))) {
		return fmt.Errorf("the signer returned a certificate for %q in %v, not for %q in %v", got.CommonName, got.Organization, want.CommonName, want.Organization)
	}
	if len(got.OrganizationalUnit) > 0 && !slices.Equal(got.OrganizationalUnit, want.OrganizationalUnit) {
		return fmt.Errorf("the signer returned a certificate with the OU %v, not %v", got.OrganizationalUnit, want.OrganizationalUnit)
	}
	return nil
}

// record records an issued certificate in the record with uid. When all of
// the user's certificates were revoked since the issue began (revocations
// is the count it read then), the certificate is recorded revoked and
// record fails: the revocation meant it too.
func record(ctx context.Context, c Client, r Request, cert *x509.Certificate, uid types.UID, revocations int64) (Record, error) {
	rec := Record{Serial: SerialString(cert.SerialNumber), User: r.User, Groups: r.Groups, Signer: r.Signer, NotAfter: cert.NotAfter.UTC()}
	now := time.Now()
	err := updateCertificates(ctx, c.Dynamic, r.Tenant, uid, func(cur Certificates) (Certificates, error) {
		rec.Revoked = nil
		if cur.userRevocations(r.User) != revocations {
			at := now.UTC().Truncate(time.Second)
			rec.Revoked = &at
		}
		return cur.withRecord(rec, now), nil
	})
	switch {
	case err != nil:
		// The key is dropped with this process: the certificate is unusable.
		return rec, fmt.Errorf("certificate %s was signed but not recorded, so its key is discarded: %w", rec.Serial, err)
	case rec.Revoked != nil:
		return rec, fmt.Errorf("certificate %s is recorded revoked and its key discarded: all certificates of user %q were revoked while it was being issued; issue it again",
			rec.Serial, r.User)
	}
	return rec, nil
}

// csrPEM is a certificate request for subject signed by key.
func csrPEM(subject pkix.Name, key crypto.Signer) ([]byte, error) {
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
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
