package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
)

// openAPIV2Groups returns the API groups of the definitions of the OpenAPI
// v2 document that client-go's discovery reads through kubeconfig (in
// protobuf, as kubectl's client-side validation and `explain
// --output=plaintext-openapiv2` ask for it).
func openAPIV2Groups(t *testing.T, kubeconfig string) (string, error) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	doc, err := dc.OpenAPISchema()
	if err != nil {
		return "", err
	}
	var groups []string
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		for _, ext := range d.GetValue().GetVendorExtension() {
			if ext.GetName() == "x-kubernetes-group-version-kind" {
				groups = append(groups, ext.GetValue().GetYaml())
			}
		}
	}
	return strings.Join(groups, "\n"), nil
}

// TestOpenAPIV2InProtobuf (issue 25, class 4): /openapi/v2 asked for in
// protobuf parses, through serve and through the server; it is the
// tenant's document: acme's CRD group without its prefix, none of it for
// beta. kubectl explain with the v2 document works.
func TestOpenAPIV2InProtobuf(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	server := viaServer(t, servers(t), "acme")
	acme.apply(t, crontabCRD)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "crontabs.stable.example.com", "--wait=false") })
	acme.k(t, "wait", "crd/crontabs.stable.example.com", "--for=condition=Established", "--timeout=60s")
	for name, kubeconfig := range map[string]string{"serve": acme.Kubeconfig, "server": server.Kubeconfig} {
		t.Run(name, func(t *testing.T) {
			var groups string
			require.Eventually(t, func() bool { // the API server publishes a new CRD's schema after a while
				var err error
				groups, err = openAPIV2Groups(t, kubeconfig)
				require.NoError(t, err, "client-go parses the document")
				return strings.Contains(groups, "stable.example.com")
			}, 60*time.Second, time.Second, "acme's group in its OpenAPI v2")
			assert.NotContains(t, groups, "acme-stable", "the upstream group of acme's CRD")
			assert.Contains(t, groups, "apps", "the built-in groups")
		})
	}
	groups, err := openAPIV2Groups(t, beta.Kubeconfig)
	require.NoError(t, err)
	assert.NotContains(t, groups, "stable.example.com", "beta's document holds nothing of acme's")
	res := acme.run(t, "", "explain", "deployment.spec.replicas", "--output=plaintext-openapiv2")
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stdout, "replicas")
}
