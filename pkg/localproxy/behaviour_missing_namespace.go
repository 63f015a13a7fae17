package localproxy

import "net/http"

// missingNamespace answers a refusal in a namespace of the tenant that does
// not exist as a real cluster answers its admin: 404 or an empty list
// (missing_namespace.go).
type missingNamespace struct{}

func (missingNamespace) refused(p *Proxy, x *exchange, _ *http.Response) bool {
	return p.answerMissingNamespace(x.w, x.r, x.u)
}
