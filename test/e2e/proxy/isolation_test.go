package proxy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workload is what each tenant creates in its namespace prod, under the
// same names, with its own data.
func workload(tenant string) string {
	return workloadIn(tenant, "prod")
}

// workloadIn is workload in namespace ns.
func workloadIn(tenant, ns string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: %[2]s}
data: {owner: %[1]s}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: %[2]s}
stringData: {password: secret-of-%[1]s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %[2]s, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: registry.example/web:1, ports: [{containerPort: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: %[2]s}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`, tenant, ns)
}

// TestTwoTenantsSameNames: two tenants served at once create the same
// names with different data and each sees only its own — each through its
// own `kubectl zoo serve`, and both through the same two replicas of the
// multi-tenant server, each with its client certificate.
func TestTwoTenantsSameNames(t *testing.T) {
	t.Run("serve", func(t *testing.T) { twoTenantsSameNames(t, serve(t, "acme"), serve(t, "beta"), "prod") })
	t.Run("server", func(t *testing.T) {
		lb := servers(t)
		twoTenantsSameNames(t, viaServer(t, lb, "acme"), viaServer(t, lb, "beta"), "prod-server")
	})
}

func twoTenantsSameNames(t *testing.T, acme, beta *served, prod string) {
	for _, s := range []*served{acme, beta} {
		s.k(t, "create", "namespace", prod)
		t.Cleanup(func() { s.run(t, "", "delete", "namespace", prod, "--wait=false") })
		s.apply(t, workloadIn(s.Tenant, prod))
	}
	// The upstream holds both twins, prefixed.
	assert.Equal(t, "acme", admin(t, "-n", "acme-"+prod, "get", "cm", "cfg", "-o", "jsonpath={.data.owner}"))
	assert.Equal(t, "beta", admin(t, "-n", "beta-"+prod, "get", "cm", "cfg", "-o", "jsonpath={.data.owner}"))

	for _, s := range []*served{acme, beta} {
		other := "beta"
		if s.Tenant == "beta" {
			other = "acme"
		}
		t.Run(s.Tenant, func(t *testing.T) {
			assert.Equal(t, s.Tenant, s.k(t, "-n", prod, "get", "cm", "cfg", "-o", "jsonpath={.data.owner}"))
			assert.Equal(t, "secret-of-"+s.Tenant, decodeB64(t, s.k(t, "-n", prod, "get", "secret", "creds", "-o", "jsonpath={.data.password}")))

			ns := s.k(t, "get", "ns", "-o", "name")
			// Other tests' namespaces may still be terminating: a subset.
			assert.Subset(t, lines(ns), []string{"namespace/default", "namespace/kube-system", "namespace/kube-public", "namespace/kube-node-lease", "namespace/" + prod})
			for _, n := range lines(ns) {
				assert.NotRegexp(t, `^namespace/(acme|beta)-`, n, "no upstream (prefixed) namespace name")
			}

			all := s.k(t, "get", "cm", "-A", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name,OWNER:.data.owner", "--no-headers")
			assert.Contains(t, all, prod)
			assert.NotContains(t, all, other)
			assert.NotContains(t, all, s.Tenant+"-")

			table := s.k(t, "get", "all", "-A")
			assert.Contains(t, table, "deployment.apps/web")
			assert.Contains(t, table, "service/web")
			assert.NotContains(t, table, s.Tenant+"-"+prod)
			assert.NotContains(t, table, other)

			sel := s.k(t, "get", "ns", "-l", "kubernetes.io/metadata.name="+prod, "-o", "name")
			assert.Equal(t, "namespace/"+prod+"\n", sel)
			fs := s.k(t, "-n", prod, "get", "cm", "--field-selector", "metadata.name=cfg", "-o", "name")
			assert.Equal(t, "configmap/cfg\n", fs)
			fsNs := s.k(t, "get", "cm", "-A", "--field-selector", "metadata.namespace="+prod, "-o", "name")
			assert.Contains(t, fsNs, "configmap/cfg")
		})
	}
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func decodeB64(t *testing.T, s string) string {
	t.Helper()
	b, err := base64Decode(s)
	require.NoError(t, err)
	return string(b)
}
