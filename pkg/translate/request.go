package translate

import (
	"fmt"
	"net/http"
	"net/url"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Request is a tenant's request as the proxy received it.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Plan says how the proxy carries out a translated request.
type Plan int

const (
	// PlanForward sends the translated request upstream once.
	PlanForward Plan = iota
	// PlanFanOut lists or watches a namespaced resource across all
	// namespaces: the tenant identity may not do that upstream, so the proxy
	// lists the tenant's namespaces (label selector TenantSelector) and sends
	// the request to each (UpstreamRequest.ForNamespace), joining the results;
	// pages are resumed with composite continue tokens (EncodeContinue).
	PlanFanOut
	// PlanSharedList lists a shared cluster-scoped kind as two upstream
	// lists at one resourceVersion (UpstreamRequest.Legs, ForLeg): the
	// cluster's objects, then the tenant's, joined into one list; pages are
	// resumed with composite continue tokens (EncodeContinue).
	PlanSharedList
	// PlanPatchInView applies a json, merge or strategic merge patch in the
	// tenant's view: the proxy GETs u.Path (JSON), calls PatchInView and
	// sends the merge patch it returns to u.Path, reading again on a
	// retryable conflict. Body then holds the per-operation translation of
	// the patch, which screens it (refusals) but is never sent.
	PlanPatchInView
)

// ResponseKind says how the proxy translates the upstream's answer.
type ResponseKind int

const (
	// ResponseObjects: objects, lists, watch streams, Tables and Status
	// (TranslateResponse / TranslateWatch).
	ResponseObjects ResponseKind = iota
	// ResponseDiscovery: /api, /apis, group and group/version documents,
	// aggregated discovery.
	ResponseDiscovery
	// ResponseOpenAPIV2 is /openapi/v2.
	ResponseOpenAPIV2
	// ResponseOpenAPIV2Protobuf is /openapi/v2 asked for in protobuf
	// (MediaOpenAPIV2Protobuf, as client-go's discovery asks): read as JSON
	// from the upstream, translated, and answered in protobuf.
	ResponseOpenAPIV2Protobuf
	// ResponseOpenAPIV3 is the /openapi/v3 index or a group/version document.
	ResponseOpenAPIV3
	// ResponseRaw is passed through untouched (logs, exec, /version, ...).
	ResponseRaw
)

// UpstreamRequest is a translated request.
type UpstreamRequest struct {
	// Info classifies the tenant's request (tenant names).
	Info RequestInfo
	// Rule is the treatment of the addressed resource (resource requests).
	Rule *KindRule
	// Plan says whether to forward or fan out.
	Plan Plan
	// Response says how to translate the answer.
	Response ResponseKind
	// Method, Path and Query of the upstream request.
	Method string
	Path   string
	Query  url.Values
	// Header holds the Content-Type and Accept to send upstream.
	Header http.Header
	// Body is the translated body (JSON, or the patch type), or nil.
	Body []byte
	// Start is where a fanned-out or shared list resumes (from the tenant's
	// continue).
	Start *ContinueToken
	// Legs are the upstream lists of a PlanSharedList request.
	Legs []ListLeg
	// Warnings are warnings for the tenant the translator adds to the
	// answer (Warning headers, as the API server writes its own).
	Warnings []string
	// Created names the object a create of a JSON or YAML body makes, read
	// while the body is translated.
	Created CreatedNames
	// objectPath is the upstream path of the addressed object without its
	// subresource (PlatformLookup.CurrentMetadata).
	objectPath string
}

// CreatedNames are metadata.name (or, without one, generateName) of a
// create's body as the tenant sent it and as translated, for the server's
// audit log.
type CreatedNames struct {
	// Read says the translator read them (a create whose body it decoded).
	Read bool
	// Tenant and Upstream are the tenant's and the translated body's.
	Tenant, Upstream string
}

// ForNamespace returns the upstream path and query of one leg of a fan-out:
// the request in the upstream namespace ns, resuming at upstream continue.
func (u *UpstreamRequest) ForNamespace(ns, continueToken string) (string, url.Values) {
	q := url.Values{}
	for k, v := range u.Query {
		q[k] = append([]string(nil), v...)
	}
	q.Del("continue")
	if continueToken != "" {
		q.Set("continue", continueToken)
	}
	return buildPath(u.Info, u.upstreamGroup(), ns, ""), q
}

func (u *UpstreamRequest) upstreamGroup() string {
	parts := splitPath(u.Path)
	if u.Info.APIPrefix == "apis" && len(parts) > 1 {
		return parts[1]
	}
	return ""
}

// TranslateRequest translates a tenant request into the upstream request.
func (t *Translator) TranslateRequest(r Request) (*UpstreamRequest, error) {
	info := ParseRequestInfo(r.Method, r.Path, r.Query)
	if err := checkPath(r.Method, r.Path, info); err != nil {
		return nil, err
	}
	r.Query = canonicalQuery(info, r.Query) // requestcheck.go
	if !info.IsResourceRequest {
		return t.translateNonResource(r, info)
	}
	rule := t.Rule(info.GroupResource(), info.Namespace != "")
	if err := t.checkVerb(rule, info); err != nil {
		return nil, err
	}
	u := &UpstreamRequest{Info: info, Rule: rule, Method: r.Method, Header: http.Header{}}
	group, err := t.tenant.UpstreamAPIGroup(info.APIGroup)
	if err != nil {
		return nil, err
	}
	ns, err := t.tenant.UpstreamNamespace(info.Namespace)
	if err != nil {
		return nil, err
	}
	name, err := t.requestName(rule, info.Name, info.Verb)
	if err != nil {
		return nil, err
	}
	if rule.Treatment == Shared && info.Verb == "list" && info.Name == "" {
		u.Plan = PlanSharedList
		if u.Legs, err = t.sharedListLegs(rule, r.Query); err != nil {
			return nil, err
		}
		_, u.Query = u.ForLeg(0, "") // what the proxy reads of it: limit, resourceVersion
	} else if u.Query, err = t.translateQuery(rule, info.Verb, r.Query); err != nil {
		return nil, err
	}
	if rule.Treatment == Namespaced && info.Namespace == "" && info.Name == "" && rule.Resource != grNamespace {
		if info.Verb != "list" && info.Verb != "watch" && info.Verb != "deletecollection" {
			// The API server serves nothing else on the all-namespaces path.
			return nil, methodNotAllowed(r.Method, r.Path)
		}
		u.Plan = PlanFanOut
	}
	if c := r.Query.Get("continue"); c != "" && (u.Plan == PlanFanOut || u.Plan == PlanSharedList) {
		tok, err := t.DecodeContinue(c, u.Plan)
		if err != nil {
			return nil, err
		}
		u.Start = &tok
	}
	u.Path = buildPath(info, group, ns, name)
	if name != "" {
		whole := info
		whole.Subresource, whole.Rest = "", nil
		u.objectPath = buildPath(whole, group, ns, name)
	}
	if info.Subresource != "" && info.Subresource != "status" && info.Subresource != "scale" {
		u.Response = ResponseRaw
		if info.Verb == "create" || info.Verb == "update" {
			u.Response = ResponseObjects
		}
		if info.Subresource == "log" || streamingSubresources[info.Subresource] {
			u.Response = ResponseRaw
		}
	}
	if info.Verb == "patch" && patchedInView(r.Header.Get("Content-Type")) {
		u.Plan = PlanPatchInView // patch_view.go
	}
	u.Header.Set("Accept", UpstreamAccept(r.Header.Get("Accept")))
	if u.Response == ResponseObjects && AcceptsProtobuf(rule, info, u.Plan, r.Header.Get("Accept")) {
		u.Header.Set("Accept", MediaProtobuf+", "+MediaJSON) // TranslateProtobuf reads the answer
	}
	if len(r.Body) > 0 && info.Verb != "get" && info.Verb != "list" && info.Verb != "watch" { // reads carry none
		if err := t.translateBody(r, u); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// checkVerb refuses what a treatment, or the row's classification of the
// subresource (checkSubresource), does not allow.
func (t *Translator) checkVerb(rule *KindRule, info RequestInfo) error {
	read := info.Verb == "get" || info.Verb == "list" || info.Verb == "watch"
	switch rule.Treatment {
	case Hidden:
		return notFound(rule.Resource, info.Name)
	case Forbidden:
		return forbidden(rule.Resource, info.Name, rule.Reason)
	case ReadOnly:
		if !read {
			return forbidden(rule.Resource, info.Name, rule.Reason)
		}
	case Namespaced:
		if rule.WritesRefused && !read {
			return forbidden(rule.Resource, info.Name, rule.Reason)
		}
	case Virtual:
		if info.Verb != "create" {
			return forbidden(rule.Resource, info.Name, fmt.Sprintf("%s can only be created", rule.Resource.String()))
		}
	}
	if err := checkSubresource(rule, info); err != nil {
		return err
	}
	if rule.Treatment != Shared || read || info.Verb == "create" || t.opts.Shared == nil || info.Name == "" {
		return nil
	}
	if !t.opts.Shared.TenantOwns(rule.Resource, info.Name) && t.opts.Shared.SharedExists(rule.Resource, info.Name) {
		return forbidden(rule.Resource, info.Name, "it belongs to the shared cluster and is read-only for tenants")
	}
	return nil
}

// requestName maps the name in a request path.
func (t *Translator) requestName(rule *KindRule, name, verb string) (string, error) {
	if name == "" {
		return "", nil
	}
	switch rule.Treatment {
	case TenantOwned:
		return t.ownName(rule, name)
	case Shared:
		if verb == "get" || verb == "list" || verb == "watch" {
			return t.ResolveSharedRef(rule.Resource, name), nil
		}
		return t.ownName(rule, name)
	}
	return name, nil
}

// checkShadow refuses a tenant object of a shared kind that would shadow one
// of the cluster's own.
func (t *Translator) checkShadow(rule *KindRule, name string) error {
	if rule.Treatment != Shared || t.opts.Shared == nil || name == "" {
		return nil
	}
	if t.opts.Shared.SharedExists(rule.Resource, name) {
		return forbidden(rule.Resource, name, "the shared cluster already has one of that name, and a tenant's may not shadow it")
	}
	return nil
}

// subresourceBodies are subresources whose body is the parent kind.
var subresourceBodies = map[string]bool{"": true, "status": true, "approval": true, "finalize": true,
	"ephemeralcontainers": true, "resize": true}

// bodyRule returns the rule used to translate a request body.
func bodyRule(rule *KindRule, sub string) *KindRule {
	if subresourceBodies[sub] {
		return rule
	}
	// Eviction, Scale, Binding, TokenRequest: only metadata.namespace/name
	// (the name is the parent's: prefixed for tenant-owned parents).
	r := &KindRule{Resource: schema.GroupResource{Resource: sub}, Treatment: rule.Treatment, Kind: rule.Kind}
	if rule.Treatment == Shared || rule.Treatment == ReadOnly || rule.Treatment == Virtual {
		r.Treatment = TenantGroup
	}
	return r
}
