package admissionrules

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestMetadataPolicyDomains: zoo-tenant-metadata carries the platform's
// domains and the allow-list of translate as they are, judges them on the
// kinds with PlatformDomains, and in both its label and annotation rules.
func TestMetadataPolicyDomains(t *testing.T) {
	p := metadataPolicy(nil)
	vars := map[string]string{}
	var order []string
	for _, v := range p.Spec.Variables {
		vars[v.Name] = v.Expression
		order = append(order, v.Name)
	}
	for _, d := range translate.PlatformDomains() {
		assert.Contains(t, vars["platformDomains"], quote(d.Domain))
		for _, u := range d.Unprefixed {
			assert.Contains(t, vars["platformUnprefixed"], quote(u))
		}
	}
	for _, a := range translate.TenantAllowedKeys() {
		t.Run(a.Key, func(t *testing.T) {
			if p, ok := strings.CutSuffix(a.Key, "/"); ok {
				assert.Contains(t, vars["tenantPrefixes"], quote(p))
				assert.NotContains(t, vars["tenantKeys"], quote(a.Key))
				return
			}
			assert.Contains(t, vars["tenantKeys"], quote(a.Key))
		})
	}
	for _, name := range []string{"platformDomains", "platformUnprefixed", "tenantKeys", "tenantPrefixes"} {
		assert.Less(t, slices.Index(order, name), slices.Index(order, "badLabels"), "a variable is read after it is defined")
		assert.Contains(t, vars["badLabels"], "variables."+name)
		assert.Contains(t, vars["badAnnotations"], "variables."+name)
	}
	for _, gr := range translate.PlatformDomainResources() {
		assert.Contains(t, vars["badLabels"], "'"+gr.Group+"/"+gr.Resource+"'")
		found := false
		for _, r := range p.Spec.MatchConstraints.ResourceRules {
			if slices.Contains(r.APIGroups, gr.Group) && slices.Contains(r.Resources, gr.Resource) && slices.Contains(r.Resources, gr.Resource+"/*") {
				found = true
			}
		}
		assert.True(t, found, "no resource rule for %s", gr)
	}
	require.Contains(t, platformKeyCEL(false), domainKeyCEL(false))
	require.Contains(t, platformKeyCEL(true), domainKeyCEL(true))
	assert.Contains(t, domainKeyCEL(false), "s[0] == d || s[0].endsWith('.' + d)", "a domain or a subdomain of it, never a mere suffix")
}
