package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestDiscoveryIsClassified: every resource of a built-in group that the
// pinned API server serves is a row of the kinds table, and every
// subresource it serves is classified for tenants by its row (what the
// table does not classify is refused, so an unclassified one would be a
// feature lost, or, before the refusal, a hole). Subresources of hidden and
// forbidden kinds are refused with the kind. A tenant's custom resources
// get status and scale, the only subresources the API server serves for
// them. And the table names no subresource the server does not serve, and
// the short names of every row are the server's (explain's aliases).
func TestDiscoveryIsClassified(t *testing.T) {
	tenants(t)
	_, lists, err := framework.AdminClient(t).Discovery().ServerGroupsAndResources()
	require.NoError(t, err)
	served := map[string]bool{}
	checked := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		require.NoError(t, err)
		for _, res := range list.APIResources {
			name, sub, _ := strings.Cut(res.Name, "/")
			gr := schema.GroupResource{Group: gv.Group, Resource: name}
			served[gr.String()+"/"+sub] = true
			if !translate.IsBuiltinGroup(gv.Group) {
				if sub != "" {
					assert.Contains(t, customSubresources(), sub, "custom resource %s/%s", gr, sub)
				}
				continue
			}
			rule, ok := translate.LookupKind(gr)
			if !assert.True(t, ok, "%s (%s) is served but not a row of the kinds table", gr, list.GroupVersion) {
				continue
			}
			if sub == "" {
				assert.ElementsMatch(t, res.ShortNames, rule.ShortNames, "the short names of %s (%s): the row's ShortNames", gr, list.GroupVersion)
				continue
			}
			checked++
			if rule.Treatment == translate.Hidden || rule.Treatment == translate.Forbidden {
				continue
			}
			assert.NotEqual(t, translate.SubresourceUnclassified, rule.SubresourceOf(sub).Class,
				"%s/%s (verbs %v) is served but not classified in the kinds table", gr, sub, res.Verbs)
		}
	}
	assert.Greater(t, checked, 40, "discovery listed too few subresources to prove anything")
	for _, s := range translate.Subresources() {
		if served[s.Resource.String()+"/"] {
			assert.True(t, served[s.Resource.String()+"/"+s.Name], "the kinds table classifies %s/%s, which the API server does not serve", s.Resource, s.Name)
		}
	}
}

func customSubresources() []string {
	var out []string
	for _, s := range translate.CustomResourceSubresources() {
		out = append(out, s.Name)
	}
	return out
}

// TestCustomResourceSubresourcesAreClassified: a tenant CRD with status and
// scale serves both through the tenant's proxy (classified for every rule
// the translator builds for a CRD), and discovery through the proxy lists
// them.
func TestCustomResourceSubresourcesAreClassified(t *testing.T) {
	acme := serve(t, "acme")
	acme.apply(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: scalers.classified.example.com}
spec:
  group: classified.example.com
  names: {kind: Scaler, plural: scalers}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "scalers.classified.example.com", "--wait=false") })
	require.Eventually(t, func() bool {
		return acme.run(t, "", "get", "scalers.classified.example.com", "-n", "default").Err == nil
	}, 30*time.Second, 200*time.Millisecond, "the CRD was never served")
	acme.apply(t, "apiVersion: classified.example.com/v1\nkind: Scaler\nmetadata: {name: s, namespace: default}\nspec: {replicas: 1}\n")
	acme.k(t, "scale", "scaler", "s", "-n", "default", "--replicas=3")
	acme.k(t, "patch", "scaler", "s", "-n", "default", "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":3}}`)
	assert.Equal(t, "3", acme.k(t, "get", "scaler", "s", "-n", "default", "-o", "jsonpath={.status.replicas}"))

	cs := clientFor(t, acme)
	_, lists, err := cs.Discovery().ServerGroupsAndResources()
	require.NoError(t, err)
	subs := 0
	for _, list := range lists {
		for _, res := range list.APIResources {
			if strings.Contains(res.Name, "/") {
				subs++
			}
		}
		if list.GroupVersion == "classified.example.com/v1" {
			names := []string{}
			for _, r := range list.APIResources {
				names = append(names, r.Name)
			}
			assert.ElementsMatch(t, []string{"scalers", "scalers/status", "scalers/scale"}, names)
		}
	}
	assert.Greater(t, subs, 40, "discovery through the proxy lists the built-in subresources too")
}
