package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// sampleCRD is k8s.io/sample-controller's CRD as its repository ships it:
// a group of the protected k8s.io domain, with the API review annotation
// the API server asks of one.
const sampleCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.samplecontroller.k8s.io
  annotations:
    api-approved.kubernetes.io: "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups"
spec:
  group: samplecontroller.k8s.io
  scope: Namespaced
  names: {kind: Foo, plural: foos}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {deploymentName: {type: string}, replicas: {type: integer}}}
          status: {type: object, properties: {availableReplicas: {type: integer}}}
`

func foo(owner string) string {
	return "apiVersion: samplecontroller.k8s.io/v1alpha1\nkind: Foo\nmetadata: {name: example-foo, namespace: default}\n" +
		"spec: {deploymentName: " + owner + "-web, replicas: 1}\n"
}

// TestTenantCRDInK8sIOGroup (issue 25, class 5): two tenants each install
// sample-controller's CRD, in the protected group samplecontroller.k8s.io,
// in their own view, through serve and through the server; each has its
// own resource, its own objects and its own status, with no cross-talk.
// Upstream the groups live outside the protected domain, under each
// tenant's prefix; the tenant identity cannot take the group itself there.
func TestTenantCRDInK8sIOGroup(t *testing.T) {
	acme, beta := serve(t, "acme"), viaServer(t, servers(t), "beta")
	for _, v := range []*served{acme, beta} {
		v.apply(t, sampleCRD)
		t.Cleanup(func() { v.run(t, "", "delete", "crd", "foos.samplecontroller.k8s.io", "--wait=false") })
		v.k(t, "wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io", "--timeout=60s")
	}
	for _, c := range []struct {
		v     *served
		owner string
	}{{acme, "acme"}, {beta, "beta"}} {
		t.Run(c.owner, func(t *testing.T) {
			var res framework.Result
			require.Eventually(t, func() bool { // kubectl's discovery learns the new group
				res = c.v.run(t, foo(c.owner), "apply", "-f", "-")
				return res.Err == nil
			}, 30*time.Second, 500*time.Millisecond, "apply a Foo")
			require.NoError(t, res.Err, res.Stderr)
			assert.Equal(t, c.owner+"-web", c.v.k(t, "get", "foo", "example-foo", "-o", "jsonpath={.spec.deploymentName}"))
			c.v.k(t, "patch", "foo", "example-foo", "--subresource=status", "--type=merge", `-p={"status":{"availableReplicas":1}}`)
			out := c.v.k(t, "api-resources", "--api-group=samplecontroller.k8s.io", "-o", "name")
			assert.Equal(t, "foos.samplecontroller.k8s.io", strings.TrimSpace(out))
			assert.NotContains(t, c.v.k(t, "get", "crd", "-o", "name"), "k8s-io", "the tenant's names only")
			assert.Contains(t, c.v.k(t, "get", "foo", "example-foo", "-o", "yaml"), "apiVersion: samplecontroller.k8s.io/v1alpha1")
		})
	}
	assert.Equal(t, "acme-samplecontroller.k8s-io", admin(t, "get", "crd", "foos.acme-samplecontroller.k8s-io", "-o", "jsonpath={.spec.group}"))
	assert.Equal(t, "beta-web", admin(t, "get", "foos.beta-samplecontroller.k8s-io", "-n", "beta-default", "example-foo", "-o", "jsonpath={.spec.deploymentName}"))
	assert.Equal(t, "acme-web", admin(t, "get", "foos.acme-samplecontroller.k8s-io", "-n", "acme-default", "example-foo", "-o", "jsonpath={.spec.deploymentName}"))

	up := upstreamLayer("admin-upstream", framework.Cluster().Kubeconfig, tenantIdentity)
	res := up.run(t, sampleCRD, "create", "-f", "-")
	require.Error(t, res.Err, "the tenant identity takes the protected group itself upstream: %s", res.Stdout)
	assert.Contains(t, res.Stderr, byPolicy)
}
