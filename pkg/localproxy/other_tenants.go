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

// otherTenantsTTL bounds how stale the tenants' names may be: a tenant
// created since shows its shared objects' names, when an answer names one,
// as they are for at most this long.
const otherTenantsTTL = 10 * time.Second

// tenantNames caches the names of all tenants, read with the proxy's own
// identity, when no Config.IsTenant follows them.
type tenantNames struct {
	mu      sync.Mutex
	names   map[string]bool
	fetched time.Time
}

// IsOtherTenant implements translate.OtherTenantsLister: an answer naming a
// shared object in another tenant's prefix leaves that name out. It is
// asked only for names with such a prefix in an answer, never per request.
// A server passes its informer (Config.IsTenant); `serve` lists the tenants
// at most every otherTenantsTTL. When they cannot be read, no name is
// another tenant's.
func (s *sharedLookup) IsOtherTenant(name string) bool {
	if name == s.p.tenant.Name() || s.p.cfg.Direct { // direct.go
		return false
	}
	if s.p.cfg.IsTenant != nil {
		return s.p.cfg.IsTenant(name)
	}
	c := &s.p.tenantNames
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil || time.Since(c.fetched) >= otherTenantsTTL {
		if names, ok := s.listTenants(); ok {
			c.names, c.fetched = names, time.Now()
		}
	}
	return c.names[name]
}

// listTenants reads the names of all tenant records.
func (s *sharedLookup) listTenants() (map[string]bool, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.p.upstreamURL(tenantsPath, nil).String(), nil)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.p.own.Do(req)
	if err != nil {
		return nil, false
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := decodeResponse(resp, &list); err != nil {
		klog.V(2).InfoS("cannot list tenants; another tenant's shared objects named in answers show as they are", "err", err)
		return nil, false
	}
	names := make(map[string]bool, len(list.Items))
	for _, item := range list.Items {
		names[item.Metadata.Name] = true
	}
	return names, true
}
