package localproxy

import (
	"context"
	"net/http"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// tenantsPath is the upstream collection of tenant records.
var tenantsPath = "/apis/" + tenantctl.TenantGVR.Group + "/" + tenantctl.TenantGVR.Version + "/" + tenantctl.TenantGVR.Resource

// otherTenantsTTL bounds how stale the list of tenants may be. A tenant
// created since is still left out of shared lists (the translator drops its
// objects), only its page may then come back short.
const otherTenantsTTL = 10 * time.Second

// tenantNames caches the names of all tenants, read with the caller's own
// identity.
type tenantNames struct {
	mu      sync.Mutex
	names   []string
	fetched time.Time
}

// OtherTenants implements translate.OtherTenantsLister: lists of shared
// kinds leave these tenants' objects out upstream. When the tenants cannot
// be read, it returns nil and the translator filters after paging.
func (s *sharedLookup) OtherTenants() []string {
	c := &s.p.tenantNames
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names != nil && time.Since(c.fetched) < otherTenantsTTL {
		return c.names
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.p.upstreamURL(tenantsPath, nil).String(), nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.p.own.Do(req)
	if err != nil {
		return nil
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := decodeResponse(resp, &list); err != nil {
		klog.V(2).InfoS("cannot list tenants; lists of shared kinds are filtered after paging", "err", err)
		return nil
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		if item.Metadata.Name != s.p.tenant.Name() {
			names = append(names, item.Metadata.Name)
		}
	}
	c.names, c.fetched = names, time.Now()
	return names
}
