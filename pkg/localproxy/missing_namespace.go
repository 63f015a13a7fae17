package localproxy

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The upstream grants a tenant its rights with RoleBindings inside each of
// its namespaces, so a request in a namespace of the tenant that does not
// exist is refused by RBAC (403) where a real cluster's admin gets 404 or an
// empty list. answerMissingNamespace puts that right.
//
// It asks the upstream, as the tenant identity, for the namespace itself:
//   - only the tenant's admins may read namespaces upstream, so a 404 there
//     means both "the namespace is absent" and "this identity is the tenant's
//     administrator", who would have every right in it had it existed;
//   - the namespace asked for is always the tenant's (the translator
//     prefixed it), so the answer tells nothing about another tenant's or the
//     platform's namespaces;
//   - anything else (it exists, the identity may not read namespaces, the
//     upstream fails) keeps the 403.

// mayBeMissingNamespace reports whether a 403 to u could be the upstream's
// answer about a namespace of the tenant that does not exist: a request for
// a namespaced resource inside a namespace (not the namespace object itself,
// and not a watch: a watch of an absent namespace is left refused).
func mayBeMissingNamespace(u *translate.UpstreamRequest) bool {
	i := u.Info
	return i.IsResourceRequest && i.Namespace != "" && i.Verb != "watch" && u.Response != translate.ResponseDiscovery
}

// answerMissingNamespace answers a request that the upstream refused with
// 403 as a real cluster would answer its admin when the namespace is absent,
// and reports whether it did. It writes nothing when the 403 stands.
func (p *Proxy) answerMissingNamespace(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) bool {
	if !mayBeMissingNamespace(u) || !p.namespaceAbsent(r.Context(), r, u) {
		return false
	}
	i := u.Info
	gr := schema.GroupResource{Group: i.APIGroup, Resource: i.Resource}
	switch {
	case i.Verb == "create" && i.Subresource == "":
		writeStatus(w, &apierrors.NewNotFound(namespacesResource, i.Namespace).ErrStatus)
	case i.Name != "":
		writeStatus(w, &apierrors.NewNotFound(gr, i.Name).ErrStatus)
	case i.Verb == "list" || i.Verb == "deletecollection":
		_, rv, err := p.tenantNamespaces(r.Context())
		if err != nil {
			return false
		}
		doc := p.emptyList(r, u)
		doc["metadata"] = map[string]any{"resourceVersion": rv}
		if _, table := doc["columnDefinitions"]; !table {
			doc["items"] = []any{}
		} else {
			doc["rows"] = []any{}
		}
		w.Header().Set("Content-Type", translate.MediaJSON)
		w.WriteHeader(http.StatusOK)
		_ = translate.EncodeDocument(w, doc)
	default:
		return false
	}
	return true
}

// namespaceAbsent asks the upstream, as the tenant identity, whether the
// tenant namespace of u is absent (404); see answerMissingNamespace.
func (p *Proxy) namespaceAbsent(ctx context.Context, r *http.Request, u *translate.UpstreamRequest) bool {
	ns, err := p.tenant.UpstreamNamespace(u.Info.Namespace)
	if err != nil || !p.tenant.Owns(ns) {
		return false
	}
	get := &translate.UpstreamRequest{Info: u.Info, Method: http.MethodGet, Header: http.Header{"Accept": {translate.MediaJSON}}}
	req, err := p.newUpstreamRequest(ctx, r, get, "/api/v1/namespaces/"+ns, nil)
	if err != nil {
		return false
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = readLimited(resp.Body)
	return resp.StatusCode == http.StatusNotFound
}
