package crbstore

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestRestoreDocument(t *testing.T) {
	acme := translate.MustTenant("acme")
	ann := `{"zoo.kubectl-zoo.io/subjects":"[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"zoo:acme:dev\"}]"}`
	meta := `{"name":"acme-readers","labels":{"zoo.kubectl-zoo.io/tenant":"acme"},"annotations":` + ann + `}`
	obj := `{"kind":"ClusterRoleBinding","apiVersion":"rbac.authorization.k8s.io/v1","metadata":` + meta + `,"roleRef":{"kind":"ClusterRole","name":"acme-reader"}}`
	foreign := strings.ReplaceAll(obj, "acme", "beta")
	table := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name"},{"name":"Role"},{"name":"Age"},{"name":"Users"},{"name":"Groups"},{"name":"ServiceAccounts"}],
		"rows":[{"cells":["acme-readers","ClusterRole/acme-reader","1m","","",""],"object":{"kind":"PartialObjectMetadata","metadata":` + meta + `}}]}`
	for _, tc := range []struct {
		name, in string
		want     []string
		not      []string
	}{
		{"object", obj, []string{`"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"zoo:acme:dev"}]`}, []string{"annotations"}},
		{"list", `{"kind":"ClusterRoleBindingList","items":[` + obj + `,` + foreign + `]}`, []string{`"name":"zoo:acme:dev"`, "zoo.kubectl-zoo.io/subjects"}, nil},
		{"watch event", `{"type":"ADDED","object":` + obj + "}\n" + `{"type":"DELETED","object":` + obj + "}", []string{`"name":"zoo:acme:dev"}]},"type":"ADDED"}`, `"name":"zoo:acme:dev"}]},"type":"DELETED"}`}, []string{"annotations"}},
		{"foreign untouched", foreign, []string{"zoo.kubectl-zoo.io/subjects"}, []string{`"subjects"`}},
		// Restored in upstream names; the translator maps the cells (below).
		{"table", table, []string{`"cells":["acme-readers","ClusterRole/acme-reader","1m","zoo:acme:dev","",""]`}, []string{"annotations", `"subjects"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := io.ReadAll(Restore(acme, io.NopCloser(strings.NewReader(tc.in))))
			require.NoError(t, err)
			for _, w := range tc.want {
				assert.Contains(t, string(out), w)
			}
			for _, n := range tc.not {
				if tc.name == "list" {
					continue
				}
				assert.NotContains(t, string(out), n)
			}
		})
	}
}
