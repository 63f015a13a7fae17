package zooserver

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// auditLine is one line of the audit log: a mutating request, who made it,
// what it addressed in the tenant's view and upstream, and how it ended.
type auditLine struct {
	Time              time.Time `json:"time"`
	Tenant            string    `json:"tenant"`
	User              string    `json:"user"`
	Groups            []string  `json:"groups,omitempty"`
	Verb              string    `json:"verb"`
	Resource          string    `json:"resource,omitempty"`
	Namespace         string    `json:"namespace,omitempty"`
	Name              string    `json:"name,omitempty"`
	UpstreamResource  string    `json:"upstreamResource,omitempty"`
	UpstreamNamespace string    `json:"upstreamNamespace,omitempty"`
	UpstreamName      string    `json:"upstreamName,omitempty"`
	Code              int       `json:"code"`
	// Truncated says a tenant-chosen field was cut at maxAuditField bytes.
	Truncated      bool    `json:"truncated,omitempty"`
	LatencySeconds float64 `json:"latencySeconds"`
}

// maxAuditField bounds a tenant-chosen field of an audit line (names and
// paths; a Kubernetes name has at most 253 bytes): a tenant does not decide
// how much the audit log grows per request.
const maxAuditField = 512

// auditLog writes one JSON line per mutating request to w.
type auditLog struct {
	mu sync.Mutex
	w  io.Writer
}

// mutating reports whether a request of verb changes something (exec,
// attach and port-forward are creates of a subresource).
func mutating(verb string) bool {
	switch verb {
	case "get", "list", "watch", "head", "options":
		return false
	}
	return true
}

// write logs the request of id that out describes; tenantSide is the
// request as the tenant sent it (used when it was refused before
// translation).
func (a *auditLog) write(id Identity, tenantSide translate.RequestInfo, out *localproxy.Outcome, start time.Time) {
	if a == nil || a.w == nil {
		return
	}
	up := out.Upstream()
	line := auditLine{
		Time: start.UTC(), Tenant: id.Tenant.Name(), User: id.User, Groups: id.Groups,
		Verb: tenantSide.Verb, Resource: resourceName(tenantSide), Namespace: tenantSide.Namespace, Name: tenantSide.Name,
		UpstreamResource: resourceName(up), UpstreamNamespace: up.Namespace, UpstreamName: up.Name,
		Code: out.Code, LatencySeconds: time.Since(start).Seconds(),
	}
	if line.Name == "" {
		line.Name = out.Created
	}
	if line.UpstreamName == "" {
		line.UpstreamName = out.UpstreamCreated
	}
	for _, f := range []*string{&line.Verb, &line.Resource, &line.Namespace, &line.Name, &line.UpstreamResource, &line.UpstreamNamespace, &line.UpstreamName} {
		if len(*f) > maxAuditField {
			*f, line.Truncated = (*f)[:maxAuditField], true
		}
	}
	b, err := json.Marshal(line)
	if err != nil {
		klog.ErrorS(err, "encoding an audit line")
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.w.Write(append(b, '\n')); err != nil {
		klog.ErrorS(err, "writing an audit line")
	}
}

// resourceName is "resource.group/subresource" of a resource request, the
// path of another.
func resourceName(info translate.RequestInfo) string {
	if !info.IsResourceRequest {
		return info.Path
	}
	res := info.Resource
	if info.APIGroup != "" {
		res += "." + info.APIGroup
	}
	if info.Subresource != "" {
		res += "/" + info.Subresource
	}
	return res
}
