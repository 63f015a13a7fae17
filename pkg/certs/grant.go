package certs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A certificate of the cluster's signer names a user of its own
// (platformobj.CertUserPrefix), whose one right is to impersonate the tenant
// identity it stands for, by a grant `cert revoke` deletes
// (platformobj.CertGrant): the API server cannot revoke the certificate, but
// once the grant is gone it authenticates a user that may do nothing.

// newCertUser is the CN of a new certificate of the cluster's signer in
// tenant t: zoo-cert:<tenant>:<128 random bits>, a user no one else is.
func newCertUser(t translate.Tenant) (string, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("a certificate's user: %w", err)
	}
	return platformobj.CertUserPrefix + t.Name() + ":" + hex.EncodeToString(id[:]), nil
}

// grant gives the certificate of rec (CN certUser) its right, then makes
// sure the certificate was not revoked meanwhile (a `cert revoke` between
// the record and the grant found no grant to delete): if it was, the grant
// is deleted again and grant fails.
func grant(ctx context.Context, c Client, tenant, certUser string, rec Record) error {
	g := platformobj.CertGrant{Tenant: tenant, Serial: rec.Serial, CertUser: certUser, User: rec.User, Groups: rec.Groups}
	if err := c.Grants.ApplyCertGrant(ctx, g); err != nil {
		return fmt.Errorf("certificate %s was signed and recorded but not granted its identity, so its key is discarded: %w", rec.Serial, err)
	}
	if err := SyncGrants(ctx, c, tenant, time.Now()); err != nil {
		return err
	}
	serials, err := c.Grants.CertGrantSerials(ctx, tenant)
	if err != nil {
		return err
	}
	for _, s := range serials {
		if s == rec.Serial {
			return nil
		}
	}
	return fmt.Errorf("certificate %s was revoked while it was being issued; its key is discarded", rec.Serial)
}

// SyncGrants deletes the grants of tenant's certificates that may no longer
// act: revoked, expired, or no longer recorded. `cert revoke` calls it
// after it recorded the revocation, so a revocation whose deletes failed is
// finished by the next revoke or issue of the tenant.
func SyncGrants(ctx context.Context, c Client, tenant string, now time.Time) error {
	serials, err := c.Grants.CertGrantSerials(ctx, tenant)
	if err != nil || len(serials) == 0 {
		return err
	}
	u, err := getTenant(ctx, c.Dynamic, tenant)
	if err != nil {
		return err
	}
	cur, err := CertificatesOf(u)
	if err != nil {
		return err
	}
	valid := map[string]bool{}
	for _, r := range cur.Issued {
		valid[r.Serial] = r.Signer == SignerKubernetes && r.Status(now) == StatusValid
	}
	var errs []error
	for _, s := range serials {
		if !valid[s] {
			errs = append(errs, c.Grants.DeleteCertGrant(ctx, tenant, s))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("take back the upstream rights of revoked certificates of tenant %s: %w", tenant, err)
	}
	return nil
}
