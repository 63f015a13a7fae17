package localproxy

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TokenReviews and SubjectAccessReviews (translate.KindRule.ProxyCreates)
// are cluster-wide: upstream, the right to create them would let a tenant
// ask about every tenant's tokens and rights, so no tenant identity holds
// it. A cluster's admin may create them, so the proxy creates them for the
// tenant's admins with its own identity, after the translator has confined
// them: a SubjectAccessReview asks about the tenant's own users, groups,
// namespaces and API groups; a TokenReview's answer names a user only when
// the token is one of the tenant's identities, else it reads as
// unauthenticated. The own identity is the caller's kubeconfig with `serve
// --tenant` and the server's ServiceAccount, which may create both (its
// authentication and authorization of tenant workloads need them). See
// docs/security.md, "Reviews the proxy creates".

// isProxyCreate reports whether u creates a review the proxy creates with
// its own identity.
func isProxyCreate(u *translate.UpstreamRequest) bool {
	return u.Rule != nil && u.Rule.ProxyCreates && u.Info.IsResourceRequest && u.Info.Verb == "create" && u.Info.Subresource == ""
}

// reviewAsOwnIdentity returns r with a context that sends its upstream
// requests with the proxy's own identity when the user is one of the
// tenant's admins; else a Forbidden status, as a cluster gives a user
// without the right.
func (p *Proxy) reviewAsOwnIdentity(r *http.Request, u *translate.UpstreamRequest) (*http.Request, *metav1.Status) {
	if !p.cfg.Admin {
		return nil, &apierrors.NewForbidden(schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}, "",
			fmt.Errorf("user %q cannot create resource %q in API group %q at the cluster scope: kubectl-zoo creates them for the tenant's admins",
				p.impersonatedUser(), u.Info.Resource, u.Info.APIGroup)).ErrStatus
	}
	return r.WithContext(context.WithValue(r.Context(), ownIdentityKey{}, true)), nil
}

// ownIdentityReviewForbidden answers a review the upstream refused to the
// proxy's own identity without naming that identity: the platform has not
// granted it the right.
func (p *Proxy) ownIdentityReviewForbidden(w http.ResponseWriter, u *translate.UpstreamRequest) {
	writeStatus(w, &apierrors.NewForbidden(schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}, "",
		fmt.Errorf("kubectl-zoo creates %s for the tenant's admins with its own identity, which the cluster does not allow to", u.Info.Resource)).ErrStatus)
}
