package translate

import (
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RequestInfo classifies a request path, like the API server's RequestInfo.
// For the namespaces resource itself Namespace is empty (the object is
// cluster-scoped) and Name holds the namespace.
type RequestInfo struct {
	// IsResourceRequest is false for discovery, OpenAPI and other paths.
	IsResourceRequest bool
	// Path is the request path.
	Path string
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection for resource requests, else the lower-case method.
	Verb string
	// APIPrefix is "api" or "apis".
	APIPrefix string
	// APIGroup and APIVersion name the group/version.
	APIGroup, APIVersion string
	// Namespace, Resource, Subresource and Name address the object.
	Namespace, Resource, Subresource, Name string
	// Rest holds path segments after the subresource (pods/x/proxy/a/b).
	Rest []string
	// PathWatch is set for the deprecated /watch/ path form.
	PathWatch bool
}

// GroupResource returns the request's group and resource.
func (i RequestInfo) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: i.APIGroup, Resource: i.Resource}
}

var verbs = map[string]string{
	http.MethodPost: "create", http.MethodGet: "get", http.MethodHead: "get",
	http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete",
}

// ParseRequestInfo classifies method + path (+ query for watch=true).
func ParseRequestInfo(method, path string, query url.Values) RequestInfo {
	info := RequestInfo{Path: path, Verb: strings.ToLower(method)}
	parts := splitPath(path)
	if len(parts) < 2 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if info.APIPrefix == "apis" {
		info.APIGroup, parts = parts[0], parts[1:]
	}
	if len(parts) == 0 {
		return info
	}
	info.APIVersion, parts = parts[0], parts[1:]
	if len(parts) == 0 {
		return info
	}
	info.IsResourceRequest = true
	if v, ok := verbs[method]; ok {
		info.Verb = v
	}
	if parts[0] == "watch" {
		info.Verb, info.PathWatch, parts = "watch", true, parts[1:]
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			info.Namespace, parts = parts[1], parts[2:]
		}
	}
	if len(parts) > 0 {
		info.Resource = parts[0]
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if len(parts) > 3 {
		info.Rest = parts[3:]
	}
	switch {
	case info.Name == "" && info.Verb == "get":
		info.Verb = "list"
		if WatchParam(query) {
			info.Verb = "watch"
		}
	case info.Name == "" && info.Verb == "delete":
		info.Verb = "deletecollection"
	}
	return info
}

// WatchParam reports whether the query asks a list to watch, exactly as the
// API server decides it (metav1.ListOptions' conversion from the query):
// the first watch value counts, and anything but "0" or "false" (in any
// case) is true — "yes", "True" and an empty value included. A GET of one
// object (by name in the path) never watches, whatever the query says.
func WatchParam(query url.Values) bool {
	values := query["watch"]
	var watch bool
	_ = runtime.Convert_Slice_string_To_bool(&values, &watch, nil) // never fails
	return watch
}

func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// buildPath renders an upstream resource path from the translated pieces.
func buildPath(info RequestInfo, group, namespace, name string) string {
	var b strings.Builder
	b.WriteString("/" + info.APIPrefix)
	if info.APIPrefix == "apis" {
		b.WriteString("/" + group)
	}
	b.WriteString("/" + info.APIVersion)
	if info.PathWatch {
		b.WriteString("/watch")
	}
	if namespace != "" {
		b.WriteString("/namespaces/" + namespace)
	}
	b.WriteString("/" + info.Resource)
	if name != "" {
		b.WriteString("/" + name)
	}
	if info.Subresource != "" {
		b.WriteString("/" + info.Subresource)
	}
	for _, r := range info.Rest {
		b.WriteString("/" + r)
	}
	return b.String()
}
