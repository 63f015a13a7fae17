package cluster_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestVersionsArePinned checks that kubectl and the apiserver report the
// version the Makefile pins (and build-kube.sh stamps).
func TestVersionsArePinned(t *testing.T) {
	want := os.Getenv("ZOO_KUBE_VERSION")
	require.NotEmpty(t, want, "ZOO_KUBE_VERSION is not set; run `make test-e2e`")
	var v struct {
		ClientVersion struct{ GitVersion string } `json:"clientVersion"`
		ServerVersion struct{ GitVersion string } `json:"serverVersion"`
	}
	require.NoError(t, json.Unmarshal([]byte(framework.Kubectl(t, "version", "-o", "json")), &v))
	assert.Equal(t, want, v.ClientVersion.GitVersion)
	assert.Equal(t, want, v.ServerVersion.GitVersion)

	// The plugin's client libraries are of the same release: v1.X.Y ↔ v0.X.Y.
	for _, lib := range []string{"k8s.io/client-go", "k8s.io/apimachinery", "k8s.io/api", "k8s.io/cli-runtime"} {
		res := framework.Run(t.Context(), nil, "go", "list", "-C", os.Getenv("ZOO_ROOT"), "-m", "-f", "{{.Version}}", lib)
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "v0"+strings.TrimPrefix(want, "v1"), strings.TrimSpace(res.Stdout), "%s in go.mod", lib)
	}
}

// TestCSRAPISignsClientCertificates checks that the CSR API issues
// kubernetes.io/kube-apiserver-client certificates that the apiserver then
// accepts (what `kubectl zoo cert issue` relies on).
func TestCSRAPISignsClientCertificates(t *testing.T) {
	ctx := t.Context()
	client := framework.AdminClient(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "csr-user", Organization: []string{"csr-group"}},
	}, key)
	require.NoError(t, err)
	csr, err := client.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "csr-user"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test", Message: "approved by test",
	})
	_, err = client.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{})
	require.NoError(t, err)

	var certPEM []byte
	require.Eventually(t, func() bool {
		got, err := client.CertificatesV1().CertificateSigningRequests().Get(ctx, csr.Name, metav1.GetOptions{})
		certPEM = got.Status.Certificate
		return err == nil && len(certPEM) > 0
	}, 60*time.Second, 200*time.Millisecond, "the controller-manager never signed the CSR")

	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	kubeconfig := framework.WriteClientKubeconfig(t, certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	out := framework.KubectlAs(t, kubeconfig, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
	assert.True(t, strings.HasPrefix(out, "csr-user "), out)
	assert.Contains(t, out, "csr-group")
}

// TestValidatingAdmissionPolicyIsEnforced checks that CEL admission works: the
// security model of kubectl-zoo is built on it.
func TestValidatingAdmissionPolicyIsEnforced(t *testing.T) {
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-no-forbidden-configmaps
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!object.metadata.name.startsWith('forbidden-')"
    message: "e2e policy forbids this name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-no-forbidden-configmaps
spec:
  policyName: e2e-no-forbidden-configmaps
  validationActions: [Deny]
`
	c := framework.Cluster()
	res := framework.Run(t.Context(), []byte(policy), framework.KubectlPath(), "--kubeconfig", c.Kubeconfig, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() {
		framework.Run(t.Context(), []byte(policy), framework.KubectlPath(), "--kubeconfig", c.Kubeconfig, "delete", "-f", "-")
	})

	// Policies are picked up asynchronously: retry until the denial shows.
	require.Eventually(t, func() bool {
		res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", c.Kubeconfig,
			"create", "configmap", "forbidden-cm", "-n", "default")
		if res.Err == nil {
			framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", c.Kubeconfig,
				"delete", "configmap", "forbidden-cm", "-n", "default")
			return false
		}
		return strings.Contains(res.Stderr, "e2e policy forbids this name")
	}, 30*time.Second, 500*time.Millisecond)
	framework.Kubectl(t, "create", "configmap", "allowed-cm", "-n", "default")
}

// TestEtcdServesMetrics checks that Cluster.EtcdServer reaches etcd's
// /metrics with the database size figures make bench-scale reads.
func TestEtcdServesMetrics(t *testing.T) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, framework.Cluster().EtcdServer+"/metrics", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	for _, name := range []string{"etcd_mvcc_db_total_size_in_bytes", "etcd_mvcc_db_total_size_in_use_in_bytes"} {
		assert.Contains(t, string(body), "\n"+name+" ", name)
	}
}
