package localproxy

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestScopeCacheForgetsUnknownGroups: a tenant that names ever new API
// groups (each one a discovery lookup) cannot grow what the proxy
// remembers of them without bound.
func TestScopeCacheForgetsUnknownGroups(t *testing.T) {
	p, _ := newTestProxy(t, jsonHandler(404, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}`))
	for i := range 3 * maxTriedGroups {
		_, ok := p.scopes.Namespaced(schema.GroupResource{Group: fmt.Sprintf("acme-g%d.example.com", i), Resource: "things"})
		assert.False(t, ok)
	}
	p.scopes.mu.Lock()
	defer p.scopes.mu.Unlock()
	assert.LessOrEqual(t, len(p.scopes.tried), maxTriedGroups)
	assert.Empty(t, p.scopes.known)
}
