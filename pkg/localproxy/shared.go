package localproxy

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// sharedPaths are the upstream collection paths of the shared kinds.
var sharedPaths = map[schema.GroupResource]string{
	{Group: "storage.k8s.io", Resource: "storageclasses"}:     "/apis/storage.k8s.io/v1/storageclasses",
	{Group: "storage.k8s.io", Resource: "csidrivers"}:         "/apis/storage.k8s.io/v1/csidrivers",
	{Group: "networking.k8s.io", Resource: "ingressclasses"}:  "/apis/networking.k8s.io/v1/ingressclasses",
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}: "/apis/scheduling.k8s.io/v1/priorityclasses",
	{Group: "node.k8s.io", Resource: "runtimeclasses"}:        "/apis/node.k8s.io/v1/runtimeclasses",
}

// sharedLookup answers translate.SharedLookup with GETs of the upstream
// object under the caller's own identity.
type sharedLookup struct{ p *Proxy }

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

// get returns the labels of an upstream object and whether it exists.
func (s *sharedLookup) get(gr schema.GroupResource, name string) (map[string]string, bool) {
	path, known := sharedPaths[gr]
	if !known || name == "" {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.p.upstreamURL(path+"/"+url.PathEscape(name), nil).String(), nil)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.p.own.Do(req)
	if err != nil {
		return nil, false
	}
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := decodeResponse(resp, &obj); err != nil {
		return nil, false
	}
	return obj.Metadata.Labels, true
}
