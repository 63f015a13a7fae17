package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRecordStatus(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		r    Record
		want string
	}{
		{"valid", Record{NotAfter: now.Add(time.Second)}, StatusValid},
		{"expired at its end", Record{NotAfter: now}, StatusExpired},
		{"revoked wins", Record{NotAfter: now.Add(time.Hour), Revoked: &now}, StatusRevoked},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.r.Status(now)) })
	}
}

func TestCertificatesUpdates(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cur := Certificates{Issued: []Record{
		{Serial: "a", User: "alice", NotAfter: now.Add(time.Hour)},
		{Serial: "old", User: "alice", NotAfter: now.Add(-recordRetention - time.Second)},
		{Serial: "b", User: "bob", NotAfter: now.Add(-time.Hour)},
	}}
	next := cur.withRecord(Record{Serial: "c", User: "alice", NotAfter: now.Add(2 * time.Hour)}, now)
	var serials []string
	for _, r := range next.Issued {
		serials = append(serials, r.Serial)
	}
	assert.Equal(t, []string{"a", "b", "c"}, serials, "long-expired records are dropped, recently expired ones kept")

	revokedAll, revoked := next.revoke(func(r Record) bool { return r.User == "alice" }, now)
	require.Len(t, revoked, 2)
	assert.Nil(t, next.Issued[0].Revoked, "revoke does not change its input")
	again, none := revokedAll.revoke(func(r Record) bool { return r.User == "alice" }, now.Add(time.Hour))
	assert.Empty(t, none, "already revoked certificates are not revoked again")
	assert.Equal(t, now, *again.Issued[0].Revoked)

	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "acme"}}}
	assert.Empty(t, RevokedSerials(u))
	require.NoError(t, unstructured.SetNestedField(u.Object, map[string]any{"issued": []any{
		map[string]any{"serial": "a", "user": "alice", "signer": "zoo", "notAfter": "2026-01-01T01:00:00Z", "revoked": "2026-01-01T00:00:00Z"},
		map[string]any{"serial": "b", "user": "bob", "signer": "zoo", "notAfter": "2026-01-01T01:00:00Z"},
	}}, "spec", "certificates"))
	assert.Equal(t, map[string]struct{}{"a": {}}, RevokedSerials(u))
}

func TestSignWithCA(t *testing.T) {
	z, err := NewZooCA()
	require.NoError(t, err)
	ca, caKey, err := z.ParseZooCA()
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	certPEM, err := SignWithCA(ca, caKey, "zoo:acme:alice", []string{"zoo:tenant:acme"}, key.Public(), now, time.Hour)
	require.NoError(t, err)
	cert, err := parseLeaf(certPEM)
	require.NoError(t, err)
	assert.Equal(t, "zoo:acme:alice", cert.Subject.CommonName)
	assert.Equal(t, []string{"zoo:tenant:acme"}, cert.Subject.Organization)
	assert.WithinDuration(t, now.Add(time.Hour), cert.NotAfter, time.Second)
	require.NoError(t, cert.CheckSignatureFrom(ca))

	capped, err := SignWithCA(ca, caKey, "zoo:acme:alice", nil, key.Public(), ca.NotAfter.Add(-time.Hour), 24*time.Hour)
	require.NoError(t, err)
	cert, err = parseLeaf(capped)
	require.NoError(t, err)
	assert.Equal(t, ca.NotAfter, cert.NotAfter, "never beyond the CA's end")
}

// TestUserRevocations: revoking by user raises the user's count, which
// withRecord and revoke carry along, without changing their input.
func TestUserRevocations(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cur := Certificates{Issued: []Record{{Serial: "a", User: "alice", NotAfter: now.Add(time.Hour)}}}
	assert.Zero(t, cur.userRevocations("alice"))
	once := cur.withUserRevoked("alice")
	assert.Nil(t, cur.RevokedUsers, "withUserRevoked does not change its input")
	twice := once.withUserRevoked("alice").withUserRevoked("bob")
	assert.Equal(t, int64(1), once.userRevocations("alice"))
	assert.Equal(t, map[string]int64{"alice": 2, "bob": 1}, twice.RevokedUsers)
	kept := twice.withRecord(Record{Serial: "b", User: "alice", NotAfter: now.Add(time.Hour)}, now)
	kept, _ = kept.revoke(func(r Record) bool { return r.Serial == "a" }, now)
	assert.Equal(t, twice.RevokedUsers, kept.RevokedUsers)

	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "acme"}}}
	require.NoError(t, unstructured.SetNestedField(u.Object, map[string]any{"revokedUsers": map[string]any{"alice": int64(3)}}, "spec", "certificates"))
	got, err := CertificatesOf(u)
	require.NoError(t, err)
	assert.Equal(t, int64(3), got.userRevocations("alice"))
}

// TestKubeconfigOfAClusterSignedCertificateImpersonates: the kubeconfig of
// a certificate of the cluster's signer impersonates the tenant user and
// groups it stands for (its own user may do nothing else), wherever it
// points; one of the zoo CA impersonates no one.
func TestKubeconfigOfAClusterSignedCertificateImpersonates(t *testing.T) {
	for _, c := range []struct {
		signer    string
		zooServer bool
		as        string
		groups    []string
	}{
		{signer: SignerKubernetes, as: "zoo:acme:carol", groups: []string{"zoo:tenant:acme", "zoo:acme:ops"}},
		{signer: SignerKubernetes, zooServer: true, as: "zoo:acme:carol", groups: []string{"zoo:tenant:acme", "zoo:acme:ops"}},
		{signer: SignerZoo, zooServer: true},
	} {
		t.Run(fmt.Sprintf("%s/zoo-server=%v", c.signer, c.zooServer), func(t *testing.T) {
			is := &Issued{Tenant: "acme", Record: Record{Serial: "a1", User: "carol", Groups: []string{"ops"}, Signer: c.signer}}
			cfg := Kubeconfig(is, Endpoint{Server: "https://x", ZooServer: c.zooServer})
			auth := cfg.AuthInfos["zoo-acme-carol"]
			require.NotNil(t, auth)
			assert.Equal(t, c.as, auth.Impersonate)
			assert.Equal(t, c.groups, auth.ImpersonateGroups)
			assert.Empty(t, auth.ImpersonateUID)
			assert.Empty(t, auth.ImpersonateUserExtra)
		})
	}
}
