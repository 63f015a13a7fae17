package translate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBindingTableCells: the cells of RoleBinding and ClusterRoleBinding
// Tables read as the bindings themselves do in JSON.
func TestBindingTableCells(t *testing.T) {
	tr := newTestTranslator(t)
	cols := `[{"name":"Name","format":"name"},{"name":"Role"},{"name":"Age"},{"name":"Users"},{"name":"Groups"},{"name":"ServiceAccounts"}]`
	row := func(name, ns, role, users, groups, sas string) string {
		meta := `{"name":"` + name + `"`
		if ns != "" {
			meta += `,"namespace":"` + ns + `"`
		}
		meta += "}"
		return `{"cells":["` + name + `","` + role + `","1m","` + users + `","` + groups + `","` + sas + `"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + meta + `}}`
	}
	for _, tc := range []struct {
		name, resource, row string
		want                string // the row's cells, or "" when the row is dropped
	}{
		{"tenant ClusterRole", "rolebindings", row("view-all", "acme-web", "ClusterRole/acme-view", "zoo:acme:dev, zoo:beta:eve", "zoo:tenant:acme", "acme-ci/builder, beta-ci/x"),
			`["view-all","ClusterRole/view","1m","dev","system:authenticated","ci/builder"]`},
		{"namespaced Role", "rolebindings", row("local", "acme-web", "Role/reader", "zoo:acme:dev", "", ""),
			`["local","Role/reader","1m","dev","",""]`},
		{"kubectl-zoo's own binding is not the tenant's", "rolebindings", row("zoo-tenant-admins", "acme-web", "ClusterRole/zoo-tenant-admin", "zoo:acme:admin", "", ""), ""},
		{"another tenant's role", "rolebindings", row("odd", "acme-web", "ClusterRole/beta-view", "", "", ""), ""},
		{"cluster binding", "clusterrolebindings", row("acme-readers", "", "ClusterRole/acme-reader", "zoo:acme:dev", "", ""),
			`["readers","ClusterRole/reader","1m","dev","",""]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule, ok := LookupKind(gr(rbacGroup, tc.resource))
			require.True(t, ok)
			in := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":` + cols + `,"rows":[` + tc.row + `]}`
			var out bytes.Buffer
			require.NoError(t, tr.TranslateList(rule, strings.NewReader(in), &out))
			if tc.want == "" {
				assert.Contains(t, out.String(), `"rows":[]`)
				return
			}
			assert.Contains(t, out.String(), `"cells":`+tc.want)
		})
	}
}
