package localproxy

import "net/http"

// namespaceIndex answers a tenant's list of its namespaces from the
// namespace index where it can, and notes each namespace write's
// resourceVersion in it, so that the next list shows the write
// (namespace_list.go).
type namespaceIndex struct{}

func (namespaceIndex) before(p *Proxy, x *exchange) bool {
	return isNamespaceList(x.u) && p.listNamespacesFromIndex(x.w, x.r, x.u)
}

func (namespaceIndex) after(p *Proxy, x *exchange, resp *http.Response) {
	if isNamespaceWrite(x.u) && p.nsIndex != nil {
		resp.Body = withWholeBody(resp.Body, p.noteNamespaceWrite)
	}
}
