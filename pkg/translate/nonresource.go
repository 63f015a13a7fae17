package translate

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// rawPaths are non-resource paths passed through untouched.
var rawPaths = map[string]bool{"version": true, "healthz": true, "livez": true, "readyz": true, ".well-known": true}

// translateNonResource handles discovery, OpenAPI and health paths; any other
// non-resource path (metrics, logs, debug) is the shared cluster's and refused.
func (t *Translator) translateNonResource(r Request, info RequestInfo) (*UpstreamRequest, error) {
	u := &UpstreamRequest{Info: info, Method: r.Method, Query: r.Query, Header: http.Header{}, Path: r.Path}
	u.Header.Set("Accept", UpstreamAccept(r.Header.Get("Accept")))
	parts := splitPath(r.Path)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, forbidden(schema.GroupResource{}, "", "only GET is allowed on "+r.Path)
	}
	first := ""
	if len(parts) > 0 {
		first = parts[0]
	}
	switch {
	case first == "api" || first == "apis":
		u.Response = ResponseDiscovery
		if first == "apis" && len(parts) >= 2 {
			g, err := t.tenant.UpstreamAPIGroup(parts[1])
			if err != nil {
				return nil, err
			}
			parts[1] = g
		}
	case first == "openapi" && len(parts) >= 2 && parts[1] == "v2":
		u.Response = ResponseOpenAPIV2
		if prefersOpenAPIV2Protobuf(r.Header.Get("Accept")) { // openapi_v2.go
			u.Response = ResponseOpenAPIV2Protobuf
		}
	case first == "openapi" && len(parts) >= 2 && parts[1] == "v3":
		u.Response = ResponseOpenAPIV3
		if len(parts) >= 4 && parts[2] == "apis" {
			g, err := t.tenant.UpstreamAPIGroup(parts[3])
			if err != nil {
				return nil, err
			}
			parts[3] = g
		}
	case rawPaths[first]:
		u.Response = ResponseRaw
	default:
		return nil, forbidden(schema.GroupResource{}, "", "the path "+r.Path+" belongs to the shared cluster")
	}
	u.Path = "/" + strings.Join(parts, "/")
	return u, nil
}
