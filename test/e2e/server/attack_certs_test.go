package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// testCA is a CA the test controls, given to a replica as --client-ca-file
// (the zoo CA), so that certificates the CSR API would never issue —
// expired, for servers, signed by a leaf — can be tried.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

var serial int64

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "attack-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key}
}

// file writes the CA's certificate (PEM) and returns its path.
func (ca *testCA) file(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "attack-ca.crt")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw}), 0o600))
	return path
}

// issue signs tmpl (a client certificate unless tmpl says otherwise) with
// the parent certificate and key; chain is appended to the PEM.
func issueWith(t *testing.T, tmpl *x509.Certificate, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, chain ...*x509.Certificate) (*clientcmdapi.AuthInfo, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	serial++
	tmpl.SerialNumber = big.NewInt(serial + 100)
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	}
	if tmpl.ExtKeyUsage == nil && !tmpl.IsCA {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for _, c := range chain {
		certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}, cert, key
}

var oidCommonName = asn1.ObjectIdentifier{2, 5, 4, 3}

// TestAttackCertificates: client certificates a hostile tenant could come
// by — from a CA the server trusts, but expired, not yet valid, for
// servers, signed by its own leaf, with subjects the proxy might read
// differently from the API server — never act as another tenant or as a
// ServiceAccount; each is a 401 and writes nothing.
func TestAttackCertificates(t *testing.T) {
	setup(t)
	ca := newTestCA(t)
	r := framework.StartReplica(t, "--client-ca-file", ca.file(t))
	url := "https://" + r.Addr
	acmeSubject := pkix.Name{CommonName: "zoo:acme:admin", Organization: []string{"zoo:tenant:acme"}}

	good, acmeLeaf, acmeKey := issueWith(t, &x509.Certificate{Subject: acmeSubject}, ca.cert, ca.key)
	who := framework.KubectlAs(t, framework.ServerKubeconfigFor(t, url, good), "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	require.Equal(t, "admin", who, "a certificate of the zoo CA is served (so each refusal below is the attack's)")

	expired, _, _ := issueWith(t, &x509.Certificate{Subject: acmeSubject, NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: time.Now().Add(-time.Hour)}, ca.cert, ca.key)
	early, _, _ := issueWith(t, &x509.Certificate{Subject: acmeSubject, NotBefore: time.Now().Add(time.Hour), NotAfter: time.Now().Add(2 * time.Hour)}, ca.cert, ca.key)
	serverOnly, _, _ := issueWith(t, &x509.Certificate{Subject: acmeSubject, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca.cert, ca.key)
	// acme's own certificate used as a CA for beta's admin.
	byLeaf, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{CommonName: "zoo:beta:admin", Organization: []string{"zoo:tenant:beta"}}}, acmeLeaf, acmeKey, acmeLeaf)
	// A long chain of intermediates no trusted CA signed.
	var chain []*x509.Certificate
	parentCert, parentKey := (*x509.Certificate)(nil), (*ecdsa.PrivateKey)(nil)
	for i := range 30 {
		tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: "rogue-" + string(rune('a'+i%26))}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		if parentCert == nil {
			parentCert, parentKey = tmpl, k
		}
		tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = big.NewInt(int64(i+1000)), time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parentCert, &k.PublicKey, parentKey)
		require.NoError(t, err)
		c, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		chain = append([]*x509.Certificate{c}, chain...)
		parentCert, parentKey = c, k
	}
	longChain, _, _ := issueWith(t, &x509.Certificate{Subject: acmeSubject}, parentCert, parentKey, chain...)
	// Two CNs: the last one counts (for the API server as for the proxy).
	twoCNs, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{Organization: []string{"zoo:tenant:acme"},
		ExtraNames: []pkix.AttributeTypeAndValue{{Type: oidCommonName, Value: "zoo:acme:admin"}, {Type: oidCommonName, Value: "zoo:beta:admin"}}}}, ca.cert, ca.key)
	noO, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{CommonName: "zoo:acme:admin"}}, ca.cert, ca.key)
	asServiceAccount, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{CommonName: "zoo:acme:system:serviceaccount:default:default",
		Organization: []string{"zoo:tenant:acme"}}}, ca.cert, ca.key)
	saGroup, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{CommonName: "zoo:acme:mallory",
		Organization: []string{"zoo:tenant:acme", "zoo:acme:system:serviceaccounts:kube-system"}}}, ca.cert, ca.key)
	twiceAndBeta, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{CommonName: "zoo:acme:admin",
		Organization: []string{"zoo:tenant:acme", "zoo:tenant:acme", "zoo:tenant:beta"}}}, ca.cert, ca.key)
	newline, _, _ := issueWith(t, &x509.Certificate{Subject: pkix.Name{CommonName: "zoo:acme:admin\nImpersonate-User: zoo:beta:admin",
		Organization: []string{"zoo:tenant:acme"}}}, ca.cert, ca.key)

	for _, c := range []struct {
		name string
		auth *clientcmdapi.AuthInfo
	}{
		{"expired", expired},
		{"not yet valid", early},
		{"for servers only", serverOnly},
		{"signed by acme's own certificate", byLeaf},
		{"a long chain of rogue intermediates", longChain},
		{"two CNs, the last beta's", twoCNs},
		{"no O", noO},
		{"CN of a ServiceAccount", asServiceAccount},
		{"O of a namespace's ServiceAccounts", saGroup},
		{"O naming acme twice and beta", twiceAndBeta},
		{"CN with a newline and a header", newline},
		{"CN of a ServiceAccount, signed by the cluster", framework.ClusterCert(t, "zoo:acme:system:serviceaccount:default:default", "zoo:tenant:acme")},
		{"O naming acme twice and beta, signed by the cluster", framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme", "zoo:tenant:acme", "zoo:tenant:beta")},
	} {
		t.Run(c.name, func(t *testing.T) {
			client := clientFor(t, framework.ServerKubeconfigFor(t, url, c.auth))
			_, err := client.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
			assert.True(t, apierrors.IsUnauthorized(err), "got %v", err)
			_, err = client.CoreV1().ConfigMaps("default").Create(t.Context(), configMap("cert-attack"), metav1.CreateOptions{})
			assert.True(t, apierrors.IsUnauthorized(err), "got %v", err)
		})
	}
	for _, ns := range []string{"acme-default", "beta-default"} {
		_, err := framework.AdminClient(t).CoreV1().ConfigMaps(ns).Get(t.Context(), "cert-attack", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s: %v", ns, err)
	}
}
