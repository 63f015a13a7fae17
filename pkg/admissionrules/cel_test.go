package admissionrules

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCELResourcePlaceholder: a CEL source names a resource by its kind,
// filled in from the kinds table; a kind without a row panics.
func TestCELResourcePlaceholder(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"request.resource.resource == '$RESOURCE(core/Pod)'", "request.resource.resource == 'pods'"},
		{"['$RESOURCE(rbac.authorization.k8s.io/RoleBinding)', '$RESOURCE(core/Event)']", "['rolebindings', 'events']"},
		{"'$LABEL' in labels", "'zoo.kubectl-zoo.io/tenant' in labels"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			assert.Equal(t, tc.want, cel(tc.src))
		})
	}
	assert.Panics(t, func() { cel("'$RESOURCE(example.com/Widget)'") })
}
