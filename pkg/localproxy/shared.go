package localproxy

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// sharedLookup answers translate.SharedLookup with GETs of the upstream
// object under the caller's own identity, cached (sharedCache): a reference
// costs at most one upstream request per sharedTTL, and the translator bounds
// the distinct references of one object (translate.MaxSharedRefs).
type sharedLookup struct {
	p     *Proxy
	cache *sharedCache
}

func newSharedLookup(p *Proxy) *sharedLookup {
	return &sharedLookup{p: p, cache: newSharedCache(sharedTTL, sharedCacheSize)}
}

// TenantOwns implements translate.SharedLookup.
func (s *sharedLookup) TenantOwns(gr schema.GroupResource, name string) bool {
	labels, ok := s.get(gr, s.p.tenant.Prefix()+name)
	return ok && labels[translate.TenantLabel] == s.p.tenant.Name()
}

// SharedExists implements translate.SharedLookup.
func (s *sharedLookup) SharedExists(gr schema.GroupResource, name string) bool {
	labels, ok := s.get(gr, name)
	return ok && labels[translate.TenantLabel] == ""
}

// OtherTenantOwns implements translate.SharedLookup.
func (s *sharedLookup) OtherTenantOwns(gr schema.GroupResource, name string) bool {
	labels, ok := s.get(gr, name)
	return ok && labels[translate.TenantLabel] != "" && labels[translate.TenantLabel] != s.p.tenant.Name()
}

// forget drops what the cache knows of gr; the proxy calls it after a write
// of a shared kind, so that the tenant's next request sees its own write.
func (s *sharedLookup) forget(gr schema.GroupResource) { s.cache.forget(gr) }

// get returns the labels of an upstream object of a shared kind and whether
// it exists.
func (s *sharedLookup) get(gr schema.GroupResource, name string) (map[string]string, bool) {
	if rule, ok := translate.LookupKind(gr); !ok || rule.Treatment != translate.Shared || name == "" {
		return nil, false
	}
	e := s.cache.get(gr, name, func() sharedEntry { return s.fetch(gr, name) })
	return e.labels, e.exists
}

// fetch reads one object upstream. A failure to read counts as absent for
// sharedTTL: the reference then resolves to the cluster's object of the name.
func (s *sharedLookup) fetch(gr schema.GroupResource, name string) sharedEntry {
	path, ok := s.p.scopes.CollectionPath(gr)
	if !ok {
		return sharedEntry{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.p.upstreamURL(path+"/"+url.PathEscape(name), nil).String(), nil)
	if err != nil {
		return sharedEntry{}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.p.own.Do(req)
	if err != nil {
		return sharedEntry{}
	}
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := decodeResponse(resp, &obj); err != nil {
		return sharedEntry{}
	}
	return sharedEntry{labels: obj.Metadata.Labels, exists: true}
}
