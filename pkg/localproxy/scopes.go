package localproxy

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// scopeRefresh bounds how often an unknown group is looked up again.
const scopeRefresh = time.Second

// maxTriedGroups bounds the groups remembered as looked up: group names
// are the tenant's to choose, one per request.
const maxTriedGroups = 1024

// scopeCache answers translate.ScopeLookup from the upstream's discovery,
// group by group, looking a group up again (at most once per scopeRefresh)
// when it does not know a resource: a CRD created a moment ago.
type scopeCache struct {
	p     *Proxy
	mu    sync.Mutex
	known map[schema.GroupResource]bool
	// version is the first (the preferred) version that serves a resource.
	version map[schema.GroupResource]string
	tried   map[string]time.Time
}

func newScopeCache(p *Proxy) *scopeCache {
	return &scopeCache{p: p, known: map[schema.GroupResource]bool{}, version: map[schema.GroupResource]string{}, tried: map[string]time.Time{}}
}

// Namespaced implements translate.ScopeLookup.
func (s *scopeCache) Namespaced(gr schema.GroupResource) (bool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookup(gr)
	ns, ok := s.known[gr]
	return ns, ok
}

// CollectionPath returns the upstream path of the resource's collection in
// its preferred version, as discovery tells it.
func (s *scopeCache) CollectionPath(gr schema.GroupResource) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookup(gr)
	v, ok := s.version[gr]
	switch {
	case !ok:
		return "", false
	case gr.Group == "":
		return "/api/" + v + "/" + gr.Resource, true
	default:
		return "/apis/" + gr.Group + "/" + v + "/" + gr.Resource, true
	}
}

// lookup discovers gr's group unless gr is known or the group was looked up
// less than scopeRefresh ago. s.mu is held.
func (s *scopeCache) lookup(gr schema.GroupResource) {
	if _, ok := s.known[gr]; ok {
		return
	}
	if last, ok := s.tried[gr.Group]; ok && time.Since(last) < scopeRefresh {
		return
	}
	if len(s.tried) >= maxTriedGroups {
		s.forgetTried()
	}
	s.tried[gr.Group] = time.Now()
	s.discover(gr.Group)
}

// forgetTried drops the lookups older than scopeRefresh (they no longer
// hold a lookup back), or all of them if none is. s.mu is held.
func (s *scopeCache) forgetTried() {
	for g, at := range s.tried {
		if time.Since(at) >= scopeRefresh {
			delete(s.tried, g)
		}
	}
	if len(s.tried) >= maxTriedGroups {
		clear(s.tried)
	}
}

// discover reads the resources of every served version of group.
func (s *scopeCache) discover(group string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var versions []string
	if group == "" {
		versions = []string{"v1"}
	} else {
		var g metav1.APIGroup
		if err := s.get(ctx, "/apis/"+group, &g); err != nil {
			return
		}
		for _, v := range g.Versions {
			versions = append(versions, v.Version)
		}
	}
	for _, v := range versions {
		path := "/apis/" + group + "/" + v
		if group == "" {
			path = "/api/v1"
		}
		var list metav1.APIResourceList
		if err := s.get(ctx, path, &list); err != nil {
			continue
		}
		for _, r := range list.APIResources {
			gr := schema.GroupResource{Group: group, Resource: r.Name}
			s.known[gr] = r.Namespaced
			if _, seen := s.version[gr]; !seen {
				s.version[gr] = v
			}
		}
	}
}

func (s *scopeCache) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.p.upstreamURL(path, url.Values{}).String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.p.own.Do(req)
	if err != nil {
		return err
	}
	return decodeResponse(resp, v)
}
