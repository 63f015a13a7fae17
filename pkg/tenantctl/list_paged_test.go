package tenantctl

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// pagingUpstream serves n tenant records (two namespaces each) with limit
// and continue (the index of the next item), and records every limit asked
// for, by path.
type pagingUpstream struct {
	n         int
	mu        sync.Mutex
	limits    map[string][]int64
	selectors []string // of the namespace lists
}

func (p *pagingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	name := func(i int) string { return fmt.Sprintf("t%d", p.n-1-i) } // unsorted upstream
	var kind, apiVersion string
	var item func(i int) map[string]any
	total := p.n
	switch r.URL.Path {
	case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + tenantapi.TenantCRDName:
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1", "metadata": map[string]any{"name": tenantapi.TenantCRDName}})
		return
	case "/apis/" + tenantapi.TenantGVR.GroupVersion().String() + "/" + tenantapi.TenantResource:
		kind, apiVersion = tenantapi.TenantKind+"List", tenantapi.TenantGVR.GroupVersion().String()
		item = func(i int) map[string]any {
			return map[string]any{"kind": tenantapi.TenantKind, "apiVersion": apiVersion, "metadata": map[string]any{"name": name(i)}}
		}
	case "/api/v1/namespaces":
		p.mu.Lock()
		p.selectors = append(p.selectors, r.URL.Query().Get("labelSelector"))
		p.mu.Unlock()
		kind, apiVersion, total = "NamespaceList", "v1", 2*p.n
		item = func(i int) map[string]any {
			owner := name(i / 2)
			return map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("%s-ns%d", owner, i%2), "labels": map[string]any{translate.TenantLabel: owner}}}
		}
	default:
		http.NotFound(w, r)
		return
	}
	limit, _ := strconv.ParseInt(r.URL.Query().Get("limit"), 10, 64)
	p.mu.Lock()
	p.limits[r.URL.Path] = append(p.limits[r.URL.Path], limit)
	p.mu.Unlock()
	start, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	end := total
	if limit > 0 && start+int(limit) < total {
		end = start + int(limit)
	}
	items := []any{}
	for i := start; i < end; i++ {
		items = append(items, item(i))
	}
	meta := map[string]any{"resourceVersion": "77"}
	if end < total {
		meta["continue"] = strconv.Itoa(end)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": kind, "apiVersion": apiVersion, "metadata": meta, "items": items})
}

// TestListTenantsPages: `tenant list` reads the tenant records and their
// namespaces chunk by chunk and still returns every tenant with its
// namespaces, and the raw list as one TenantList.
func TestListTenantsPages(t *testing.T) {
	const tenants = 7
	for _, tc := range []struct {
		chunk   int64
		pages   int // requests of the tenant list
		nsPages int // and of the namespaces (two a tenant)
	}{{0, 1, 1}, {1, tenants, 2 * tenants}, {3, 3, 5}, {500, 1, 1}} {
		t.Run(fmt.Sprintf("chunks of %d", tc.chunk), func(t *testing.T) {
			up := &pagingUpstream{n: tenants, limits: map[string][]int64{}}
			ts := httptest.NewServer(up)
			defer ts.Close()
			c, err := NewClient(&rest.Config{Host: ts.URL})
			require.NoError(t, err)
			infos, raw, err := c.ListTenants(t.Context(), tc.chunk)
			require.NoError(t, err)
			require.Len(t, infos, tenants)
			for i, info := range infos {
				assert.Equal(t, fmt.Sprintf("t%d", i), info.Tenant.Name)
				assert.Equal(t, []string{fmt.Sprintf("t%d-ns0", i), fmt.Sprintf("t%d-ns1", i)}, info.Namespaces)
			}
			assert.Len(t, raw.Items, tenants)
			assert.Equal(t, tenantapi.TenantKind+"List", raw.GetKind())
			assert.Equal(t, tenantapi.TenantGVR.GroupVersion().String(), raw.GetAPIVersion())
			assert.Equal(t, "77", raw.GetResourceVersion())
			tenantLimits, nsLimits := up.limits["/apis/"+tenantapi.TenantGVR.GroupVersion().String()+"/"+tenantapi.TenantResource], up.limits["/api/v1/namespaces"]
			assert.Len(t, tenantLimits, tc.pages)
			assert.Len(t, nsLimits, tc.nsPages)
			for _, sel := range up.selectors {
				assert.Equal(t, translate.TenantLabel, sel, "the tenants' namespaces only")
			}
			for _, l := range append(tenantLimits, nsLimits...) {
				assert.Equal(t, tc.chunk, l, "every request asks for one chunk")
			}
		})
	}
}
