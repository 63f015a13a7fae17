package localproxy

import "github.com/kubectl-zoo/kubectl-zoo/pkg/translate"

// allNamespacesReviews answers an access review of all namespaces from
// the same review in each of the tenant's namespaces (reviews_all.go). A
// review the translator planned otherwise than as a plain forward is left
// to its plan.
type allNamespacesReviews struct{}

func (allNamespacesReviews) before(p *Proxy, x *exchange) bool {
	return x.u.Plan == translate.PlanForward && p.answersAllNamespacesReview(x.w, x.r, x.u)
}
