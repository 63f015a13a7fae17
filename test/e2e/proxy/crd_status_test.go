package proxy_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestCRDStatusSubresource: a tenant reads, updates and patches the status of
// its own CustomResourceDefinition, as a cluster admin does (conformance:
// "getting/updating/patching custom resource definition status sub-resource
// works"). It cannot touch another tenant's: through the proxy that CRD does
// not exist; directly upstream the tenant's identity is refused by the
// zoo-tenant policy (the CRD's group lacks its prefix) and a tenant pod's
// ServiceAccount token by RBAC.
func TestCRDStatusSubresource(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.stat.example.com}
spec:
  group: stat.example.com
  scope: Cluster
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`
	acme.apply(t, crd)
	beta.apply(t, crd)

	status := acme.k(t, "get", "crd", "gizmos.stat.example.com", "--subresource=status", "-o", "jsonpath={.spec.group}")
	assert.Equal(t, "stat.example.com", status, "the status subresource is the whole object, translated")
	acme.k(t, "patch", "crd", "gizmos.stat.example.com", "--subresource=status", "--type=json",
		"-p", `[{"op":"add","path":"/status/conditions/-","value":{"type":"example.com/Patched","status":"True","message":"patched"}}]`)
	assert.Equal(t, "patched", admin(t, "get", "crd", "gizmos.acme-stat.example.com",
		"-o", `jsonpath={.status.conditions[?(@.type=="example.com/Patched")].message}`))
	c, host := rawClient(t, acme)
	code, body := do(t, c, http.MethodGet, host+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.stat.example.com/status", nil, "")
	require.Equal(t, http.StatusOK, code, body)
	assert.NotContains(t, body, "acme-")

	t.Run("another tenant's CRD through the proxy does not exist", func(t *testing.T) {
		code, body := do(t, c, http.MethodPatch, host+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.beta-stat.example.com/status",
			map[string]string{"Content-Type": "application/merge-patch+json"}, `{"status":{"storedVersions":[]}}`)
		assert.Equal(t, http.StatusNotFound, code, body)
	})
	t.Run("the tenant's identity directly upstream is refused", func(t *testing.T) {
		res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins",
			"patch", "crd", "gizmos.beta-stat.example.com", "--subresource=status", "--type=merge", "-p", `{"status":{"storedVersions":[]}}`)
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "may only write CustomResourceDefinitions whose group starts with acme-")
	})
	t.Run("a tenant pod's ServiceAccount token upstream is refused", func(t *testing.T) {
		cs := clientFor(t, acme)
		acme.k(t, "create", "namespace", "crdstat")
		var tok *authenticationv1.TokenRequest
		require.Eventually(t, func() bool { // the namespace's default ServiceAccount comes from a controller
			var err error
			tok, err = cs.CoreV1().ServiceAccounts("crdstat").CreateToken(t.Context(), "default", &authenticationv1.TokenRequest{
				Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))},
			}, metav1.CreateOptions{})
			return err == nil
		}, 30*time.Second, 200*time.Millisecond)
		base, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
		require.NoError(t, err)
		base.CertData, base.KeyData, base.CertFile, base.KeyFile = nil, nil, "", ""
		base.BearerToken = tok.Status.Token
		sa, err := kubernetes.NewForConfig(base)
		require.NoError(t, err)
		err = sa.Discovery().RESTClient().Patch("application/merge-patch+json").
			AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.beta-stat.example.com/status").
			Body([]byte(`{"status":{"storedVersions":[]}}`)).Do(t.Context()).Error()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
		acme.k(t, "delete", "namespace", "crdstat", "--wait=false")
	})
	assert.Equal(t, "v1", admin(t, "get", "crd", "gizmos.beta-stat.example.com", "-o", "jsonpath={.status.storedVersions[*]}"),
		"beta's CRD status is untouched")
	acme.k(t, "delete", "crd", "gizmos.stat.example.com", "--wait=false")
	beta.k(t, "delete", "crd", "gizmos.stat.example.com", "--wait=false")
}
