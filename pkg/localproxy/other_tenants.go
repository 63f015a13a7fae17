package localproxy

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// tenantsPath is the upstream collection of tenant records.
var tenantsPath = "/apis/" + tenantapi.TenantGVR.Group + "/" + tenantapi.TenantGVR.Version + "/" + tenantapi.TenantGVR.Resource

// otherTenantsTTL bounds how stale the tenants' names may be: a tenant
// created since shows its shared objects' names, when an answer names one,
// as they are for at most this long.
const otherTenantsTTL = 10 * time.Second

// IsOtherTenant implements translate.OtherTenantsLister: an answer naming a
// shared object in another tenant's prefix leaves that name out. It is
// asked only for names with such a prefix in an answer, never per request.
// A server passes its informer (Config.IsTenant); `serve` reads the one
// Tenant record of that name (a GET, whatever the number of tenants),
// believed for otherTenantsTTL. When it cannot be read, the name is no
// other tenant's.
func (s *sharedLookup) IsOtherTenant(name string) bool {
	if name == s.p.tenant.Name() || s.p.cfg.Direct { // direct.go
		return false
	}
	if s.p.cfg.IsTenant != nil {
		return s.p.cfg.IsTenant(name)
	}
	return s.p.tenantRecords.get(tenantRecordsGR, name, func() sharedEntry {
		return sharedEntry{exists: s.tenantExists(name)}
	}).exists
}

// tenantRecordsGR keys the cached reads of tenant records.
var tenantRecordsGR = schema.GroupResource{Group: tenantapi.TenantGVR.Group, Resource: tenantapi.TenantGVR.Resource}

// tenantExists reads whether the Tenant record name exists.
func (s *sharedLookup) tenantExists(name string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.p.upstreamURL(tenantsPath+"/"+url.PathEscape(name), nil).String(), nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.p.own.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyBytes))
	switch resp.StatusCode {
	case http.StatusOK:
		return true
	case http.StatusNotFound:
	default:
		klog.V(2).InfoS("cannot read a tenant record; another tenant's shared objects named in answers show as they are",
			"tenant", name, "code", resp.StatusCode)
	}
	return false
}
