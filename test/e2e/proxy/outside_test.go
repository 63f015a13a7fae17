package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutsideReferencesThroughProxy: fields that point outside the tenant's
// space are refused by acme's proxy with a 403 naming the field (addresses
// the cluster would route or dial, paths on its machines), or translated
// into acme's space (the namespaces of secrets that volumes and classes
// name). The same probes directly upstream are in the tenant package's
// TestAttackSuite.
func TestOutsideReferencesThroughProxy(t *testing.T) {
	acme := serve(t, "acme")
	c, host := rawClient(t, acme)

	for _, tc := range []struct{ name, path, body, field string }{
		{"a Service capturing external IPs", "/api/v1/namespaces/default/services",
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"mitm"},"spec":{"ports":[{"port":443}],"externalIPs":["203.0.113.10"]}}`, "spec.externalIPs"},
		{"a volume on a machine's root", "/api/v1/persistentvolumes",
			`{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"root"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/"}}}`, "spec.hostPath"},
		{"a CRD whose conversion the API server would fetch from a URL", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"dials.dial.example.com"},"spec":{"group":"dial.example.com","scope":"Namespaced",` +
				`"names":{"plural":"dials","kind":"Dial"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],` +
				`"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://203.0.113.11/convert"}}}}}`,
			"spec.conversion.webhook.clientConfig.url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, c, "POST", host+tc.path, nil, tc.body)
			assert.Equal(t, http.StatusForbidden, code, body)
			assert.Contains(t, body, tc.field+" may not be set by tenants")
		})
	}
	t.Run("a class's secret namespace lands in acme's space", func(t *testing.T) {
		code, body := do(t, c, "POST", host+"/apis/storage.k8s.io/v1/storageclasses", nil,
			`{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"secretive"},"provisioner":"d.example.com",`+
				`"parameters":{"csi.storage.k8s.io/provisioner-secret-name":"creds","csi.storage.k8s.io/provisioner-secret-namespace":"kube-system"}}`)
		require.Equal(t, http.StatusCreated, code, body)
		assert.Equal(t, "acme-kube-system", strings.TrimSpace(admin(t, "get", "storageclass", "acme-secretive",
			"-o", `jsonpath={.parameters.csi\.storage\.k8s\.io/provisioner-secret-namespace}`)))
		assert.Equal(t, "kube-system", strings.TrimSpace(acme.k(t, "get", "storageclass", "secretive",
			"-o", `jsonpath={.parameters.csi\.storage\.k8s\.io/provisioner-secret-namespace}`)), "the tenant sees its own name")
		acme.k(t, "delete", "storageclass", "secretive")
	})
}
