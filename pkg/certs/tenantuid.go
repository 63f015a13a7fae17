package certs

import (
	"crypto/x509"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// A certificate outlives its tenant: deleting a tenant drops its record (and
// the revocations in it), and a new tenant of the same name may follow. So
// that a certificate issued for the old tenant never acts for the new one,
// `cert issue` writes the UID of the Tenant record it issues under into the
// certificate's Subject, as an OU TenantUIDUnitPrefix+<uid> (both signers
// keep the Subject of the request; the API server's x509 authenticator reads
// only CN and O, so the OU changes nothing upstream), and the zoo server
// refuses a certificate whose OU names another record (CheckIssuedUnder).
const TenantUIDUnitPrefix = "zoo:tenant-uid:"

// TenantUIDUnit is the OU that marks a certificate issued under the Tenant
// record with uid.
func TenantUIDUnit(uid types.UID) string { return TenantUIDUnitPrefix + string(uid) }

// CheckIssuedUnder says why a client certificate of a tenant cannot have
// been issued under the tenant's current record (uid), or nil: it is marked
// with another record's UID (the tenant was deleted and made again since).
// No clock is compared, so neither a signer's backdating of NotBefore (5
// minutes for the cluster's, 1 for the zoo CA) nor clock skew matters. A
// certificate without the mark (made otherwise than by `cert issue`, which
// records nothing of it either) is not judged here.
func CheckIssuedUnder(cert *x509.Certificate, uid types.UID) error {
	for _, ou := range cert.Subject.OrganizationalUnit {
		got, ok := strings.CutPrefix(ou, TenantUIDUnitPrefix)
		if ok && types.UID(got) != uid {
			return fmt.Errorf("certificate %s was issued for an earlier tenant of this name (record %s), which was deleted", SerialString(cert.SerialNumber), got)
		}
	}
	return nil
}
