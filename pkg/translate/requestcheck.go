package translate

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Every request is classified once (ParseRequestInfo, which agrees with the
// API server's RequestInfoFactory) and the upstream request is rebuilt from
// that classification: path, query, headers and body are the translator's.
// What the two could still read differently is refused here rather than
// forwarded: a method the API server does not map to a verb, path segments
// a server could normalize away ("", ".", ".."), the deprecated /proxy/ verb,
// segments past the subresource, and the proxy subresources, through which
// the API server dials an address the tenant chose.

// resourceMethods are the methods the API server maps to a verb.
var resourceMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true,
	http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true}

// proxySubresources make the API server open a connection to an address
// taken from the addressed object: a pod's IP, a service's endpoints (which
// a tenant may write by hand) or a node's kubelet.
var proxySubresources = map[string]bool{"proxy": true}

// streamingSubresources are the subresources of core pods that the API
// server serves by upgrading the connection (SPDY or WebSocket), besides the
// proxy subresources refused above.
var streamingSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true}

// multiValued are the query parameters the API server reads as lists
// (dryRun of writes, the command of an exec, the ports of a port-forward);
// of every other parameter it reads the first value only, so only that one
// is forwarded.
var multiValued = map[string]bool{"dryRun": true, "command": true, "ports": true}

// IsStreaming reports whether the request is one the API server upgrades to
// a stream: exec, attach or port-forward of a pod in a namespace. No other
// request may be forwarded as an upgrade.
func (i RequestInfo) IsStreaming() bool {
	return i.IsResourceRequest && i.APIPrefix == "api" && i.APIGroup == grPod.Group && i.Resource == grPod.Resource &&
		i.Namespace != "" && i.Name != "" && streamingSubresources[i.Subresource] && len(i.Rest) == 0
}

// checkPath refuses what ParseRequestInfo and the API server could read
// differently, or what must not reach the upstream at all.
func checkPath(method, path string, info RequestInfo) error {
	trimmed := strings.Trim(path, "/") // as splitPath, without allocating
	for rest, more := trimmed, trimmed != ""; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		if seg == "" || seg == "." || seg == ".." {
			return badRequest("the path %q has an empty or dot segment", path)
		}
	}
	if !info.IsResourceRequest {
		return nil
	}
	if !resourceMethods[method] || ((info.Verb == "update" || info.Verb == "patch") && info.Name == "") {
		return methodNotAllowed(method, path)
	}
	gr := info.GroupResource()
	switch {
	case info.Resource == "proxy" && info.Namespace == "":
		return forbidden(schema.GroupResource{}, "", "the /proxy/ path lets the API server dial an address and is refused")
	case info.Resource == "":
		return badRequest("the path %q names no resource", path)
	case proxySubresources[info.Subresource]:
		return forbidden(gr, info.Name, "the proxy subresource makes the API server dial an address the tenant controls")
	case len(info.Rest) > 0:
		return notFound(gr, info.Name)
	}
	return nil
}

// canonicalQuery returns the query the API server will read from q: one
// value per parameter (the first) except for the multiValued ones, and
// watch set exactly when the request is a watch by its query.
func canonicalQuery(info RequestInfo, q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		switch {
		case len(v) == 0:
		case multiValued[k]:
			out[k] = append([]string(nil), v...)
		default:
			out[k] = []string{v[0]}
		}
	}
	delete(out, "watch")
	if info.Verb == "watch" && !info.PathWatch {
		out["watch"] = []string{"true"}
	}
	return out
}

// methodNotAllowed is the 405 the API server answers for a method it does
// not serve on a path.
func methodNotAllowed(method, path string) *Error {
	return &Error{Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed,
		Message: fmt.Sprintf("the method %s is not allowed on %s", method, path)}
}
