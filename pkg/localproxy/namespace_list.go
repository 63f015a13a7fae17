package localproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// isNamespaceList reports whether u is a tenant's list of its namespaces.
func isNamespaceList(u *translate.UpstreamRequest) bool {
	i := u.Info
	return i.IsResourceRequest && i.Verb == "list" && i.GroupResource() == namespacesResource &&
		i.Subresource == "" && i.Name == "" && u.Plan == translate.PlanForward
}

// isNamespaceWrite reports whether u changes namespace objects (a create,
// update, patch or delete of one, of its status or finalizers, or a
// deletecollection).
func isNamespaceWrite(u *translate.UpstreamRequest) bool {
	i := u.Info
	if !i.IsResourceRequest || i.GroupResource() != namespacesResource {
		return false
	}
	switch i.Verb {
	case "get", "list", "watch":
		return false
	}
	return len(u.Query["dryRun"]) == 0
}

// indexedListParams are the query parameters of a namespace list the index
// answers; with any other (a field selector, a continue token, a
// resourceVersionMatch, ...) the list goes upstream.
var indexedListParams = map[string]bool{"labelSelector": true, "limit": true, "resourceVersion": true,
	"includeObject": true}

// listNamespacesFromIndex answers a tenant's list of its namespaces from the
// namespace index (namespace_index.go), and reports whether it did; when it
// did not, nothing was written and the caller forwards the list.
//
// Upstream authorization still decides: the proxy asks, as the tenant
// identity, whether the list is allowed (namespaceListAllowed), and
// forwards it when not, so that the upstream refuses it itself. The
// answer is the index's namespaces that the upstream's label selector (the
// tenant's, translated, with the tenant's label) selects, shaped as the API
// server would have answered (a NamespaceList or a Table), then translated
// like any upstream answer.
func (p *Proxy) listNamespacesFromIndex(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) bool {
	if p.nsIndex == nil || !indexedQuery(u.Query) {
		return false
	}
	format, ok := indexAnswerFormat(u.Header.Get("Accept"), u.Query.Get("includeObject"))
	if !ok {
		return false
	}
	sel, err := labels.Parse(u.Query.Get("labelSelector"))
	if err != nil {
		return false // the upstream says what is wrong with it
	}
	nss, rv, ok := p.nsIndex.Namespaces(r.Context(), p.tenant.Name())
	if !ok {
		return false
	}
	selected := nss[:0:0]
	for _, ns := range nss {
		if sel.Matches(labels.Set(ns.Labels)) {
			selected = append(selected, ns)
		}
	}
	if l, set := u.Query["limit"]; set {
		limit, err := strconv.ParseInt(l[0], 10, 64)
		if err != nil || (limit > 0 && int64(len(selected)) > limit) {
			return false // a page and a continue token (or the error): the upstream's
		}
	}
	allowed, err := p.namespaceListAllowed(r, u)
	if err != nil || !allowed {
		if err != nil {
			klog.V(2).InfoS("cannot ask whether the namespace list is allowed; forwarding it", "tenant", p.tenant.Name(), "err", err)
		}
		return false // the upstream answers, and refuses, the list itself
	}
	doc, err := format.encode(selected, rv)
	if err != nil {
		klog.ErrorS(err, "encoding the namespace list from the index", "tenant", p.tenant.Name())
		return false
	}
	addWarnings(w.Header(), u.Warnings)
	w.Header().Set("Content-Type", translate.MediaJSON) // as the API server labels Tables too
	lw := &lazyWriter{w: w, code: http.StatusOK}
	if err := p.tr.TranslateList(u.Rule, bytes.NewReader(doc), lw); err != nil && !lw.wrote {
		writeStatus(w, translate.ToStatus(err))
	}
	return true
}

// indexedQuery reports whether the index can answer a list with query q:
// only the parameters it understands, and no resourceVersion asking for
// more than "the most recent" ("") or "any" ("0").
func indexedQuery(q url.Values) bool {
	for k := range q {
		if !indexedListParams[k] {
			return false
		}
	}
	rv := q.Get("resourceVersion")
	return rv == "" || rv == "0"
}

// namespaceListAllowed asks the upstream whether the tenant identity may
// list namespaces with the upstream label selector of u: a
// SelfSubjectAccessReview with the list's own attributes, as that identity
// (which any authenticated user may create), so that RBAC, and an
// authorizer that judges selectors, decide as for the list itself.
func (p *Proxy) namespaceListAllowed(r *http.Request, u *translate.UpstreamRequest) (bool, error) {
	review := authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Version: "v1", Resource: namespacesResource.Resource}}}
	if sel := u.Query.Get("labelSelector"); sel != "" {
		review.Spec.ResourceAttributes.LabelSelector = &authorizationv1.LabelSelectorAttributes{RawSelector: sel}
	}
	body, err := json.Marshal(&review)
	if err != nil {
		return false, err
	}
	up := *u
	up.Method, up.Body = http.MethodPost, body
	up.Header = http.Header{"Accept": {translate.MediaJSON}, "Content-Type": {translate.MediaJSON}}
	a, err := p.roundTripAsTenant(r.Context(), r, &up, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", nil) // crb.go
	if err != nil {
		return false, err
	}
	if a.code != http.StatusCreated && a.code != http.StatusOK {
		return false, fmt.Errorf("the upstream answered the access review with %d", a.code)
	}
	if err := json.Unmarshal(a.body, &review); err != nil {
		return false, fmt.Errorf("decoding the access review: %w", err)
	}
	return review.Status.Allowed, nil
}

// noteNamespaceWrite records the resourceVersion of a namespace write's
// answer in the namespace index, so that the tenant's next list shows it.
func (p *Proxy) noteNamespaceWrite(body []byte) {
	if p.nsIndex == nil {
		return
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		return // not an object the upstream changed (a Status of a gone namespace)
	}
	if acc, err := meta.Accessor(obj); err == nil {
		p.nsIndex.NoteWrite(p.tenant.Name(), acc.GetResourceVersion())
	} else if list, err := meta.ListAccessor(obj); err == nil {
		p.nsIndex.NoteWrite(p.tenant.Name(), list.GetResourceVersion())
	}
}

// withWholeBody reads a streamed answer whole, hands it to f and returns it
// again to be translated (f sees nothing of an answer it could not read).
func withWholeBody(body io.ReadCloser, f func([]byte)) io.ReadCloser {
	data, err := io.ReadAll(body)
	body.Close()
	if err == nil {
		f(data)
	}
	return io.NopCloser(bytes.NewReader(data))
}

// namespaceListJSON is a NamespaceList as the API server writes it.
func namespaceListJSON(nss []*corev1.Namespace, rv string) ([]byte, error) {
	list := corev1.NamespaceList{Items: make([]corev1.Namespace, len(nss))}
	list.Kind, list.APIVersion = "NamespaceList", "v1"
	list.ResourceVersion = rv
	for i, ns := range nss {
		list.Items[i] = *ns
	}
	return json.Marshal(&list)
}
