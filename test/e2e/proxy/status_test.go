package proxy_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPlatformStatusIsReadOnly: the status of Services, claims, quotas and
// Ingresses, and a pod's addresses, are written by the shared cluster's controllers and kubelets,
// and the platform acts on it (pods/proxy dials a pod's podIP; DNS and load
// balancer controllers publish a Service's or Ingress's addresses). Through
// acme's proxy a write of it is refused with 403 by the proxy's translator;
// directly upstream the zoo-tenant policy refuses it (TestAttackSuite).
// Reading it works.
func TestPlatformStatusIsReadOnly(t *testing.T) {
	acme := serve(t, "acme")
	acme.k(t, "create", "namespace", "status")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "status", "--wait=false") })
	acme.k(t, "-n", "status", "create", "service", "clusterip", "web", "--tcp=80:80")
	acme.k(t, "-n", "status", "create", "quota", "q", "--hard=pods=5")
	c, host := rawClient(t, acme)

	for _, tc := range []struct{ name, path, body string }{
		{"a Service's load balancer address", "/api/v1/namespaces/status/services/web/status",
			`{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}`},
		{"a quota's usage", "/api/v1/namespaces/status/resourcequotas/q/status", `{"status":{"used":{"pods":"0"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, c, "PATCH", host+tc.path, map[string]string{"Content-Type": "application/merge-patch+json"}, tc.body)
			assert.Equal(t, http.StatusForbidden, code, body)
			assert.Contains(t, body, "is written by the shared cluster's controllers")
		})
	}
	t.Run("a pod's addresses, refused upstream; its conditions stay writable", func(t *testing.T) {
		acme.apply(t, `apiVersion: v1
kind: Pod
metadata: {name: addr, namespace: status}
spec: {containers: [{name: c, image: busybox}], nodeName: no-such-node}
`)
		code, body := do(t, c, "PATCH", host+"/api/v1/namespaces/status/pods/addr/status", map[string]string{"Content-Type": "application/merge-patch+json"},
			`{"status":{"podIP":"203.0.113.8","podIPs":[{"ip":"203.0.113.8"}]}}`)
		assert.Equal(t, http.StatusForbidden, code, body)
		assert.Contains(t, body, "tenants may not change podIP", "the zoo-tenant policy upstream refuses it")
		code, body = do(t, c, "PATCH", host+"/api/v1/namespaces/status/pods/addr/status", map[string]string{"Content-Type": "application/merge-patch+json"},
			`{"status":{"conditions":[{"type":"example.com/Ready","status":"True"}]}}`)
		assert.Equal(t, http.StatusOK, code, body)
	})
	t.Run("reading a status works", func(t *testing.T) {
		code, body := do(t, c, "GET", host+"/api/v1/namespaces/status/resourcequotas/q/status", nil, "")
		assert.Equal(t, http.StatusOK, code, body)
	})
	assert.Empty(t, admin(t, "-n", "acme-status", "get", "service", "web", "-o", "jsonpath={.status.loadBalancer.ingress}"))
}
