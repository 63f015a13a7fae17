package localproxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIsOtherTenantReadsOneRecord: serve asks whether a name is another
// tenant's by reading that one Tenant record (a request whatever the number
// of tenants), believes the answer for a while, and treats a record it
// cannot read as no tenant's.
func TestIsOtherTenantReadsOneRecord(t *testing.T) {
	p, up := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/tenants/beta"):
			jsonHandler(200, `{"kind":"Tenant","metadata":{"name":"beta"}}`)(w, r)
		case strings.HasSuffix(r.URL.Path, "/tenants/broken"):
			jsonHandler(500, `{"kind":"Status","code":500}`)(w, r)
		default:
			jsonHandler(404, `{"kind":"Status","code":404,"reason":"NotFound"}`)(w, r)
		}
	})
	for _, tc := range []struct {
		name string
		want bool
	}{{"beta", true}, {"gamma", false}, {"broken", false}, {"acme", false}} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, p.shared.IsOtherTenant(tc.name))
			sent := len(up.requests)
			assert.Equal(t, tc.want, p.shared.IsOtherTenant(tc.name), "again, from the cache")
			assert.Len(t, up.requests, sent, "the second question reached the upstream")
		})
	}
	for _, r := range up.requests {
		assert.Equal(t, http.MethodGet, r.Method)
		assert.Regexp(t, `/apis/zoo\.kubectl-zoo\.io/v1alpha1/tenants/(beta|gamma|broken)$`, r.URL.Path, "only the one record is read")
	}
	assert.Len(t, up.requests, 3, "the tenant's own name needs no request")
}
