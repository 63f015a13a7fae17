package certs

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Signers of certificates.
const (
	// SignerKubernetes is the cluster's signer kubernetes.io/kube-apiserver-client
	// through the CSR API: the API server itself accepts these certificates.
	SignerKubernetes = "kubernetes"
	// SignerZoo is the zoo CA (install --server): only the zoo server accepts
	// these certificates.
	SignerZoo = "zoo"
)

// Statuses of a recorded certificate.
const (
	StatusValid   = "valid"
	StatusExpired = "expired"
	StatusRevoked = "revoked"
)

// Record is what is kept upstream of one issued certificate: never its key.
type Record struct {
	// Serial is the certificate's serial number, lower-case hex.
	Serial string `json:"serial"`
	// User is the tenant-local user (the CN is zoo:<tenant>:<user> for the
	// zoo CA; a certificate of the cluster's signer impersonates it, grant.go).
	User string `json:"user"`
	// Groups are the tenant-local groups, sorted.
	Groups []string `json:"groups,omitempty"`
	// Signer is SignerKubernetes or SignerZoo.
	Signer string `json:"signer"`
	// NotAfter is when the certificate expires (RFC 3339, UTC).
	NotAfter time.Time `json:"notAfter"`
	// Revoked is when the certificate was revoked; nil while it is not.
	Revoked *time.Time `json:"revoked,omitempty"`
}

// Status is the record's status at now.
func (r Record) Status(now time.Time) string {
	switch {
	case r.Revoked != nil:
		return StatusRevoked
	case !now.Before(r.NotAfter):
		return StatusExpired
	default:
		return StatusValid
	}
}

// Certificates is the schema of a Tenant record's spec.certificates.
type Certificates struct {
	// Issued are the tenant's certificates, oldest first. A record is
	// dropped once its certificate has been expired for recordRetention.
	Issued []Record `json:"issued,omitempty"`
	// RevokedUsers counts, per user, the revocations of all the user's
	// certificates (`cert revoke --tenant T --user U`). An issue that began
	// before such a revocation and records its certificate after it finds
	// the count changed, and records the certificate revoked: a revocation
	// by user never misses a certificate being issued at that moment.
	RevokedUsers map[string]int64 `json:"revokedUsers,omitempty"`
}

// userRevocations is how often all of user's certificates were revoked.
func (c Certificates) userRevocations(user string) int64 { return c.RevokedUsers[user] }

// withUserRevoked returns c with user's count of revocations raised.
func (c Certificates) withUserRevoked(user string) Certificates {
	out := c
	out.RevokedUsers = maps.Clone(c.RevokedUsers)
	if out.RevokedUsers == nil {
		out.RevokedUsers = map[string]int64{}
	}
	out.RevokedUsers[user]++
	return out
}

// recordRetention is how long the record of an expired certificate stays
// (an expired certificate is refused everywhere by its notAfter alone).
const recordRetention = 7 * 24 * time.Hour

// SerialString is how serials are written: lower-case hex, no separators.
func SerialString(serial *big.Int) string { return serial.Text(16) }

// CertificatesOf reads spec.certificates of a Tenant record.
func CertificatesOf(u *unstructured.Unstructured) (Certificates, error) {
	var c Certificates
	raw, ok, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "certificates")
	if err != nil || !ok || raw == nil {
		return c, err
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return c, fmt.Errorf("tenant %s: spec.certificates: %w", u.GetName(), err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("tenant %s: spec.certificates: %w", u.GetName(), err)
	}
	return c, nil
}

// RevokedSerials returns the serials a Tenant record says are revoked (the
// server's question, for every request with a client certificate).
func RevokedSerials(u *unstructured.Unstructured) map[string]struct{} {
	c, err := CertificatesOf(u)
	if err != nil {
		return nil
	}
	var out map[string]struct{}
	for _, r := range c.Issued {
		if r.Revoked != nil {
			if out == nil {
				out = map[string]struct{}{}
			}
			out[r.Serial] = struct{}{}
		}
	}
	return out
}

// withRecord returns c with r added (or replacing the record of the same
// serial) and the records expired for longer than recordRetention dropped.
func (c Certificates) withRecord(r Record, now time.Time) Certificates {
	out := Certificates{Issued: make([]Record, 0, len(c.Issued)+1), RevokedUsers: c.RevokedUsers}
	for _, old := range c.Issued {
		if old.Serial == r.Serial || now.Sub(old.NotAfter) > recordRetention {
			continue
		}
		out.Issued = append(out.Issued, old)
	}
	out.Issued = append(out.Issued, r)
	return out
}

// revoke marks the records match selects revoked at now and returns them;
// records already revoked stay as they were.
func (c Certificates) revoke(match func(Record) bool, now time.Time) (Certificates, []Record) {
	out := Certificates{Issued: slices.Clone(c.Issued), RevokedUsers: c.RevokedUsers}
	var revoked []Record
	for i, r := range out.Issued {
		if !match(r) || r.Revoked != nil {
			continue
		}
		t := now.UTC().Truncate(time.Second)
		out.Issued[i].Revoked = &t
		revoked = append(revoked, out.Issued[i])
	}
	return out, revoked
}
