package localproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// An access review of a namespaced resource in all namespaces
// (resourceAttributes without a namespace: `kubectl auth can-i list pods
// -A`, what k9s asks before every all-namespaces view) would be judged
// upstream as a cluster-wide right, which no tenant identity holds; the
// view serves such requests namespace by namespace instead (the fan-out).
// So the proxy answers it from the same review asked in each of the
// tenant's namespaces, with the identity the review itself is sent with
// (the tenant identity for a SelfSubjectAccessReview; the proxy's own, for
// an admin's SubjectAccessReview about a tenant user):
//
//   - list and watch, which the view serves across namespaces by asking each
//     and leaving out the namespaces it may not read, are allowed when at
//     least one of the tenant's namespaces allows them;
//   - every other verb (create, get, update, delete, deletecollection, ...)
//     is allowed when every one of the tenant's namespaces allows it, as a
//     cluster-wide right allows it in every namespace.
//
// A tenant without namespaces is allowed nothing. Cluster-scoped and
// namespaced reviews, and reviews of every resource ("*"), keep the
// upstream's answer.

// allNamespacesAnyVerbs are the verbs allowed in all namespaces when one
// namespace allows them.
var allNamespacesAnyVerbs = map[string]bool{"list": true, "watch": true}

// reviewParallelism bounds the per-namespace reviews of one review in
// flight at once (as the fan-out's legs).
const reviewParallelism = 16

// accessReview is the part of a translated access review the proxy reads.
type accessReview struct {
	Spec struct {
		ResourceAttributes map[string]any `json:"resourceAttributes"`
	} `json:"spec"`
}

// allNamespacesReview reports whether u creates a SelfSubjectAccessReview
// or SubjectAccessReview that asks about a namespaced resource in all
// namespaces, and returns its decoded upstream body.
func (p *Proxy) allNamespacesReview(u *translate.UpstreamRequest) (map[string]any, bool) {
	i := u.Info
	if !i.IsResourceRequest || i.Verb != "create" || i.Subresource != "" ||
		!slices.Contains(accessReviews, i.GroupResource()) || len(u.Query["dryRun"]) > 0 {
		return nil, false
	}
	var obj map[string]any
	if json.Unmarshal(u.Body, &obj) != nil {
		return nil, false
	}
	var rv accessReview
	if json.Unmarshal(u.Body, &rv) != nil || rv.Spec.ResourceAttributes == nil {
		return nil, false
	}
	attrs := rv.Spec.ResourceAttributes
	if s, _ := attrs["namespace"].(string); s != "" {
		return nil, false
	}
	group, _ := attrs["group"].(string)
	resource, _ := attrs["resource"].(string)
	return obj, p.namespacedUpstream(schema.GroupResource{Group: group, Resource: resource})
}

// namespacedUpstream reports whether the upstream resource gr is
// namespaced: by the kinds table, else by the upstream's discovery (the
// tenant's custom resources). "*" and unknown resources are not.
func (p *Proxy) namespacedUpstream(gr schema.GroupResource) bool {
	if gr.Resource == "" || gr.Resource == "*" || gr.Group == "*" {
		return false
	}
	if rule, ok := translate.LookupKind(gr); ok {
		return rule.Treatment == translate.Namespaced
	}
	namespaced, known := p.scopes.Namespaced(gr)
	return known && namespaced
}

// answersAllNamespacesReview answers u when it is an all-namespaces review
// (allNamespacesReview) and reports whether it did. With the tenant user's
// own credential (Config.Direct) the review goes upstream as sent, as the
// all-namespaces lists do.
func (p *Proxy) answersAllNamespacesReview(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) bool {
	if p.cfg.Direct {
		return false
	}
	obj, ok := p.allNamespacesReview(u)
	if ok {
		p.serveAllNamespacesReview(w, r, u, obj)
	}
	return ok
}

// serveAllNamespacesReview answers the all-namespaces review obj (decoded
// from u's upstream body) from the same review in each of the tenant's
// namespaces. It sends the reviews with r's context (so with the identity
// the review is sent with).
func (p *Proxy) serveAllNamespacesReview(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, obj map[string]any) {
	nss, _, err := p.tenantNamespaces(r.Context())
	if err != nil {
		writeStatus(w, p.namespacesStatus(err))
		return
	}
	verb, _ := obj["spec"].(map[string]any)["resourceAttributes"].(map[string]any)["verb"].(string)
	anyNS := allNamespacesAnyVerbs[verb]
	decided, err := p.decideInNamespaces(r, u, obj, nss, anyNS)
	if err != nil {
		p.allNamespacesReviewFailed(w, r, u, err)
		return
	}
	obj["status"] = map[string]any{"allowed": allNamespacesAllowed(anyNS, nss, decided)}
	body, err := json.Marshal(obj)
	if err != nil {
		writeStatus(w, translateStatus(err))
		return
	}
	p.answer(w, u, &upstreamAnswer{code: http.StatusCreated, header: http.Header{"Content-Type": {translate.MediaJSON}}, body: body}, nil) // astenant.go
}

// decideInNamespaces asks the review obj in each of nss and returns the
// namespace that decides it: with any, the first that allows it (""
// when none does); else the first that denies it ("" when all allow). A
// namespace being deleted decides nothing, as the fan-out reads nothing
// there (its RoleBindings go first): only a namespace that would decide is
// looked up.
func (p *Proxy) decideInNamespaces(r *http.Request, u *translate.UpstreamRequest, obj map[string]any, nss []string, anyNS bool) (string, error) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var mu sync.Mutex
	decided := ""
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(reviewParallelism)
	for _, ns := range nss {
		g.Go(func() error {
			allowed, err := p.reviewIn(gctx, r, u, obj, ns)
			if err != nil {
				if ctx.Err() != nil { // decided elsewhere meanwhile
					return nil
				}
				return err
			}
			if allowed == anyNS && !p.namespaceGoing(gctx, ns) {
				mu.Lock()
				if decided == "" || ns < decided {
					decided = ns
				}
				mu.Unlock()
				cancel()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	return decided, nil
}

// reviewIn asks the review obj in the upstream namespace ns and returns
// whether it is allowed.
func (p *Proxy) reviewIn(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, obj map[string]any, ns string) (bool, error) {
	spec := obj["spec"].(map[string]any)
	attrs := map[string]any{}
	for k, v := range spec["resourceAttributes"].(map[string]any) {
		attrs[k] = v
	}
	attrs["namespace"] = ns
	one := map[string]any{}
	for k, v := range obj {
		one[k] = v
	}
	oneSpec := map[string]any{}
	for k, v := range spec {
		oneSpec[k] = v
	}
	oneSpec["resourceAttributes"] = attrs
	one["spec"] = oneSpec
	body, err := json.Marshal(one)
	if err != nil {
		return false, err
	}
	up := *u
	up.Body, up.Header = body, http.Header{"Accept": {translate.MediaJSON}, "Content-Type": {translate.MediaJSON}}
	a, err := p.roundTripAsTenant(ctx, r, &up, u.Info.Path, nil) // astenant.go: the identity of ctx
	if err != nil {
		return false, err
	}
	if a.code/100 != 2 {
		// Not the upstream's text: it may name the proxy's own identity
		// or upstream namespaces.
		return false, &statusError{code: a.code}
	}
	var answer struct {
		Status struct {
			Allowed bool `json:"allowed"`
			Denied  bool `json:"denied"`
		} `json:"status"`
	}
	if err := json.Unmarshal(a.body, &answer); err != nil {
		return false, fmt.Errorf("decoding the access review: %w", err)
	}
	return answer.Status.Allowed && !answer.Status.Denied, nil
}

// allNamespacesReviewFailed answers an all-namespaces review whose
// per-namespace reviews failed with err: a refusal of the proxy's own
// identity as reviews.go answers it (without naming that identity), else
// the upstream's code in words of the proxy's.
func (p *Proxy) allNamespacesReviewFailed(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, err error) {
	var se *statusError
	if !errors.As(err, &se) {
		writeStatus(w, unavailable(p.base.Host, err))
		return
	}
	if se.code == http.StatusForbidden && r.Context().Value(ownIdentityKey{}) != nil {
		p.ownIdentityReviewForbidden(w, u) // reviews.go
		return
	}
	writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: int32(se.code), Reason: metav1.StatusReasonInternalError,
		Message: fmt.Sprintf("kubectl-zoo asks an access review of all namespaces in each of them, and the upstream answered one with %d", se.code)})
}

// allNamespacesAllowed says whether an all-namespaces review is allowed,
// given the namespace that decided it (decideInNamespaces). The answer
// carries no reason: the translator empties an access review's reason
// (it names the upstream objects that decided).
func allNamespacesAllowed(anyNS bool, nss []string, decided string) bool {
	return len(nss) > 0 && anyNS == (decided != "")
}
