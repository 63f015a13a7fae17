package proxy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// routeCRD is a stand-in for the Gateway API's HTTPRoute, as a platform
// installs it: a CRD in a built-in group (its API review annotation is what
// the API server asks of a *.k8s.io group).
const routeCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: httproutes.gateway.networking.k8s.io
  annotations: {api-approved.kubernetes.io: "https://github.com/kubernetes-sigs/gateway-api/pull/1538"}
spec:
  group: gateway.networking.k8s.io
  scope: Namespaced
  names: {plural: httproutes, singular: httproute, kind: HTTPRoute, listKind: HTTPRouteList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// route is an HTTPRoute in namespace ns that claims host on the platform's
// shared gateway.
func route(name, ns, host string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
		"spec:\n  parentRefs: [{name: shared, namespace: infra}]\n  hostnames: [" + host + "]\n  rules: [{backendRefs: [{name: web, port: 80}]}]\n"
}

// TestPlatformCRDInBuiltinGroup (issue 24, classes 1 and 2; issue 25,
// class 5): a custom resource of a CRD the platform installed in a
// built-in group — here the Gateway API's HTTPRoute, whose hostnames the
// shared gateway routes and whose parents are the platform's — is not a
// tenant's to write. Through the proxy the group is the tenant's own
// (gateway.networking.k8s.io is acme-gateway.networking.k8s-io upstream),
// so a request for it never reaches the platform's routes: acme reads none
// and writes none (404, its own group has no such resource). As the tenant
// identity and with a ServiceAccount token, directly upstream, zoo-tenant
// refuses every write to a built-in group the kinds table does not
// classify. So acme cannot claim beta's host on the shared gateway.
func TestPlatformCRDInBuiltinGroup(t *testing.T) {
	res := framework.Run(t.Context(), []byte(routeCRD), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	t.Cleanup(func() {
		framework.Run(context.Background(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"delete", "crd", "httproutes.gateway.networking.k8s.io", "--wait=false")
	})
	admin(t, "wait", "--for=condition=Established", "crd/httproutes.gateway.networking.k8s.io", "--timeout=60s")
	_, attackers := addressAttackers(t, "routes") // address_test.go
	res = framework.Run(t.Context(), []byte(route("platform", "acme-routes", "acme.apps.example.com")), framework.KubectlPath(),
		"--kubeconfig", framework.Cluster().Kubeconfig, "create", "-f", "-")
	require.NoError(t, res.Err, "the platform's own route in acme's namespace: %s", res.Stderr)
	before := admin(t, "get", "httproutes", "-A", "-o", "yaml")
	for _, a := range attackers {
		routes := "/apis/gateway.networking.k8s.io/v1/namespaces/" + a.ns + "/httproutes"
		if a.stopper == byProxy {
			t.Run(a.name+"/the platform's routes are nobody's in the view", func(t *testing.T) {
				res := a.run(t, "", "get", "--raw", routes+"/platform")
				require.Error(t, res.Err, "read: %s", res.Stdout)
				assert.Contains(t, res.Stderr, "NotFound")
				res = a.run(t, "", "api-resources", "--api-group=gateway.networking.k8s.io", "-o", "name")
				require.NoError(t, res.Err, res.Stderr)
				assert.Empty(t, strings.TrimSpace(res.Stdout), "the platform's group is not in the tenant's discovery")
				body := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"steal"},` +
					`"spec":{"parentRefs":[{"name":"shared","namespace":"infra"}],"hostnames":["beta.apps.example.com"]}}`
				res = a.run(t, body, "create", "--raw", routes, "-f", "-")
				require.Error(t, res.Err, "claim beta's host: %s", res.Stdout)
				assert.Contains(t, res.Stderr, "NotFound", "the tenant's own group has no such resource")
			})
			continue
		}
		for _, at := range []struct {
			name, stdin string
			args        []string
		}{
			{name: "claim beta's host on the shared gateway", stdin: route("steal", a.ns, "beta.apps.example.com"), args: []string{"create", "-f", "-"}},
			{name: "move the platform's route to beta's host", args: []string{"-n", a.ns, "patch", "httproute", "platform", "--type=merge",
				`-p={"spec":{"hostnames":["beta.apps.example.com"]}}`}},
			{name: "write the route's status", args: []string{"-n", a.ns, "patch", "httproute", "platform", "--subresource=status", "--type=merge",
				`-p={"status":{"parents":[{"parentRef":{"name":"shared","namespace":"infra"},"controllerName":"x"}]}}`}},
			{name: "delete the platform's route", args: []string{"-n", a.ns, "delete", "httproute", "platform"}},
		} {
			t.Run(a.name+"/"+at.name, func(t *testing.T) {
				res := a.run(t, at.stdin, at.args...)
				require.Error(t, res.Err, "accepted: %s", res.Stdout)
				assert.Contains(t, res.Stderr, byPolicy)
				if !strings.Contains(at.name, "status") { // the status subresource has its own refusal
					assert.Contains(t, res.Stderr, "is not classified for tenants in the kinds table")
				}
			})
		}
	}
	assert.Equal(t, before, admin(t, "get", "httproutes", "-A", "-o", "yaml"), "no route changed")
}
