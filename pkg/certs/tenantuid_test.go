package certs

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckIssuedUnder(t *testing.T) {
	created := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	cert := func(notBefore time.Time, ous ...string) *x509.Certificate {
		return &x509.Certificate{SerialNumber: big.NewInt(0xabc), NotBefore: notBefore,
			Subject: pkix.Name{CommonName: "zoo:acme:alice", Organization: []string{"zoo:tenant:acme"}, OrganizationalUnit: ous}}
	}
	for _, tc := range []struct {
		name string
		cert *x509.Certificate
		want string
	}{
		{"marked with the record", cert(created.Add(-5*time.Minute), TenantUIDUnit("uid-new")), ""},
		{"marked with the record, long after", cert(created.Add(48*time.Hour), TenantUIDUnit("uid-new")), ""},
		{"marked with an earlier record", cert(created.Add(time.Hour), TenantUIDUnit("uid-old")), "certificate abc was issued for an earlier tenant of this name (record uid-old)"},
		{"marked twice, once wrong", cert(created.Add(time.Hour), TenantUIDUnit("uid-new"), TenantUIDUnit("uid-old")), "earlier tenant"},
		{"unmarked", cert(created.Add(-time.Hour)), ""},
		{"other OUs are no mark", cert(created.Add(-time.Hour), "platform"), ""},
		{"another OU beside the mark", cert(created, "platform", TenantUIDUnit("uid-old")), "earlier tenant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckIssuedUnder(tc.cert, "uid-new")
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
