package zooserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/tools/cache"
)

// TestCertIdentityFromTheRecord: the server takes the identity of a
// certificate of the cluster's signer from its tenant's record, by serial:
// the recorded user and groups; a revoked, unknown or zoo-signed serial,
// or a tenant without a record, is refused with a reason.
func TestCertIdentityFromTheRecord(t *testing.T) {
	rec := tenantRecord("acme", "admin")
	require.NoError(t, unstructured.SetNestedField(rec.Object, map[string]any{"issued": []any{
		map[string]any{"serial": "a1", "user": "carol", "groups": []any{"ops"}, "signer": "kubernetes", "notAfter": "2099-01-01T00:00:00Z"},
		map[string]any{"serial": "b2", "user": "dave", "signer": "kubernetes", "notAfter": "2099-01-01T00:00:00Z", "revoked": "2026-01-01T00:00:00Z"},
		map[string]any{"serial": "c3", "user": "erin", "signer": "zoo", "notAfter": "2099-01-01T00:00:00Z"},
	}}, "spec", "certificates"))
	obj, err := transformTenant(rec)
	require.NoError(t, err)
	idx := &tenantIndex{informer: cache.NewSharedIndexInformer(nil, &unstructured.Unstructured{}, 0, cache.Indexers{})}
	require.NoError(t, idx.informer.GetStore().Add(obj))
	leaf := func(serial int64) *x509.Certificate { return &x509.Certificate{SerialNumber: big.NewInt(serial)} }
	cases := []struct {
		name, tenant string
		serial       int64
		user         string
		groups       []string
		why          string
	}{
		{name: "recorded", tenant: "acme", serial: 0xa1, user: "zoo:acme:carol", groups: []string{"zoo:tenant:acme", "zoo:acme:ops"}},
		{name: "revoked", tenant: "acme", serial: 0xb2, why: "certificate b2 is revoked"},
		{name: "of the zoo CA", tenant: "acme", serial: 0xc3, why: "certificate c3 is not recorded in tenant acme"},
		{name: "unknown", tenant: "acme", serial: 0xd4, why: "certificate d4 is not recorded in tenant acme"},
		{name: "no record", tenant: "beta", serial: 0xa1, why: "tenant beta does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, why := idx.certIdentity(c.tenant, leaf(c.serial))
			assert.Equal(t, c.why, why)
			if c.why != "" {
				assert.Nil(t, u)
				return
			}
			require.NotNil(t, u)
			assert.Equal(t, c.user, u.GetName())
			assert.Equal(t, c.groups, u.GetGroups())
		})
	}
	_, found, _ := unstructured.NestedFieldNoCopy(obj.(*unstructured.Unstructured).Object, "spec", "certificates")
	assert.False(t, found, "the informer keeps no certificate records")
}

// TestVerifiedLeafOf: a certificate's user (zoo-cert:) is mapped by its
// record only when the connection verified that very certificate and it
// names that user. A token whose authenticator returned such a name, with
// a certificate of the attacker's own carrying a victim's serial, is not.
func TestVerifiedLeafOf(t *testing.T) {
	const name = "zoo-cert:acme:0123"
	mine := &x509.Certificate{SerialNumber: big.NewInt(0xa1), Subject: pkix.Name{CommonName: name}}
	other := &x509.Certificate{SerialNumber: big.NewInt(0xa1), Subject: pkix.Name{CommonName: name}}
	verified := func(leaf *x509.Certificate) *connCache {
		return &connCache{leaf: leaf, resp: &authenticator.Response{User: &user.DefaultInfo{Name: leaf.Subject.CommonName}}}
	}
	request := func(cc *connCache, peer *x509.Certificate) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api", nil)
		if cc != nil {
			r = r.WithContext(context.WithValue(r.Context(), connKey{}, cc))
		}
		r.TLS = &tls.ConnectionState{}
		if peer != nil {
			r.TLS.PeerCertificates = []*x509.Certificate{peer}
		}
		return r
	}
	for _, tc := range []struct {
		name string
		r    *http.Request
		user string
		ok   bool
	}{
		{"the verified certificate of the user", request(verified(mine), mine), name, true},
		{"a token's user, with an unverified certificate", request(&connCache{}, other), name, false},
		{"another certificate than the verified one", request(verified(mine), other), name, false},
		{"the verified certificate of another user", request(verified(mine), mine), "zoo-cert:acme:4567", false},
		{"no certificate", request(&connCache{}, nil), name, false},
		{"no connection cache", request(nil, mine), name, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf, why := verifiedLeafOf(tc.r, tc.user)
			if tc.ok {
				assert.Same(t, mine, leaf)
				assert.Empty(t, why)
				return
			}
			assert.Nil(t, leaf)
			assert.NotEmpty(t, why)
		})
	}
}
