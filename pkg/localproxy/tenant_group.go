package localproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Cluster-scoped custom resources of a tenant's CRD groups (treatment
// TenantGroup) go upstream with the caller's own identity, not the tenant's:
// RBAC cannot grant a tenant "every group with my prefix", and one grant per
// CRD would cost a ClusterRoleBinding each (the RBAC authorizer scans them
// all on every request of the cluster). It is safe because the translator has
// already put the request in the tenant's own group (prefixed upstream, and
// tenant names never contain the separator, so no other tenant's group is
// reachable), and the proxy checks, as the tenant identity, that the user may
// do the same with the group's CustomResourceDefinition (tenantGroupAccess).
// Through the server the own identity is its ServiceAccount, which gets its
// right one CRD at a time from a ClusterRole the tenant writes
// (tenant_group_role.go). See docs/security.md, "Cluster-scoped custom
// resources".

// tenantGroupTTL is how long an access review's answer is believed.
const tenantGroupTTL = 10 * time.Second

// ownIdentityKey marks a request context whose upstream requests the proxy
// sends with its own identity (a nil value unmarks it).
type ownIdentityKey struct{}

// identityTransport sends a request with the caller's own identity when its
// context is marked (ownIdentityKey), else impersonating the tenant identity.
type identityTransport struct{ tenant, own http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t identityTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Context().Value(ownIdentityKey{}) != nil {
		return t.own.RoundTrip(req)
	}
	return t.tenant.RoundTrip(req)
}

// tenantGroupAccess caches the answers of access reviews.
type tenantGroupAccess struct {
	mu      sync.Mutex
	answers map[string]accessAnswer
}

type accessAnswer struct {
	allowed bool
	at      time.Time
}

// tenantGroupRequest reports whether u addresses cluster-scoped custom
// resources of one of the tenant's CRD groups, and returns that upstream
// group.
func (p *Proxy) tenantGroupRequest(u *translate.UpstreamRequest) (string, bool) {
	if p.cfg.Direct || !u.Info.IsResourceRequest || u.Rule == nil || // no identity of its own (direct.go)
		u.Rule.Treatment != translate.TenantGroup || u.Info.Namespace != "" {
		return "", false
	}
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	if len(parts) < 4 || parts[0] != "apis" || !p.tenant.Owns(parts[1]) {
		return "", false
	}
	return parts[1], true
}

// asOwnIdentity returns r with a context that sends its upstream requests
// with the proxy's own identity, once the tenant identity may do the request's
// verb on the CRD of the addressed resource; else a Forbidden status.
func (p *Proxy) asOwnIdentity(r *http.Request, u *translate.UpstreamRequest, group string) (*http.Request, *metav1.Status) {
	crd := u.Info.Resource + "." + group
	allowed, err := p.mayUseCRD(r.Context(), u.Info.Verb, crd)
	if err != nil {
		return nil, &apierrors.NewServiceUnavailable(fmt.Sprintf("kubectl-zoo cannot review access to %s: %v", crd, err)).ErrStatus
	}
	if !allowed {
		return nil, &apierrors.NewForbidden(schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}, u.Info.Name,
			fmt.Errorf("user %q may not %s the CustomResourceDefinition %s.%s, and the cluster-scoped objects of a tenant's CRD group are served to those who may",
				p.impersonatedUser(), u.Info.Verb, u.Info.Resource, u.Info.APIGroup)).ErrStatus
	}
	owned, err := p.crdIsTenants(r.Context(), crd) // tenant_group_owner.go
	if err != nil {
		return nil, &apierrors.NewServiceUnavailable(fmt.Sprintf("kubectl-zoo cannot read the CustomResourceDefinition %s: %v", crd, err)).ErrStatus
	}
	if !owned {
		return nil, &apierrors.NewForbidden(schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}, u.Info.Name,
			fmt.Errorf("no CustomResourceDefinition of tenant %s serves %s.%s", p.tenant, u.Info.Resource, u.Info.APIGroup)).ErrStatus
	}
	return r.WithContext(context.WithValue(r.Context(), ownIdentityKey{}, true)), nil
}

// mayUseCRD asks the upstream, as the tenant identity, whether it may do
// verb on the CustomResourceDefinition crd (upstream name), cached.
func (p *Proxy) mayUseCRD(ctx context.Context, verb, crd string) (bool, error) {
	key := verb + " " + crd
	a := &p.groupAccess
	a.mu.Lock()
	ans, ok := a.answers[key]
	a.mu.Unlock()
	if ok && time.Since(ans.at) < tenantGroupTTL {
		return ans.allowed, nil
	}
	review := authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: verb, Group: crdsResource.Group, Resource: crdsResource.Resource, Name: crd,
		},
	}}
	review.APIVersion, review.Kind = authorizationv1.SchemeGroupVersion.String(), "SelfSubjectAccessReview"
	body, err := json.Marshal(review)
	if err != nil {
		return false, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		p.upstreamURL("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", nil).String(), bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", translate.MediaJSON)
	req.Header.Set("Accept", translate.MediaJSON)
	resp, err := p.client.Do(req) // the tenant identity: ctx is never marked here
	if err != nil {
		return false, err
	}
	if resp.StatusCode == http.StatusCreated {
		resp.StatusCode = http.StatusOK // decodeResponse wants 200
	}
	var out authorizationv1.SelfSubjectAccessReview
	if err := decodeResponse(resp, &out); err != nil {
		return false, err
	}
	a.mu.Lock()
	if a.answers == nil || len(a.answers) > 1024 {
		a.answers = map[string]accessAnswer{}
	}
	a.answers[key] = accessAnswer{allowed: out.Status.Allowed, at: time.Now()}
	a.mu.Unlock()
	return out.Status.Allowed, nil
}

// impersonatedUser is the tenant-local user the proxy acts as.
func (p *Proxy) impersonatedUser() string {
	if p.cfg.User == "" {
		return translate.DefaultAdminUser
	}
	return p.cfg.User
}
