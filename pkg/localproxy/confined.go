package localproxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Admission configuration and flow control (the kinds table's AccessProxy
// kinds: webhook configurations, ValidatingAdmissionPolicies and their
// bindings, FlowSchemas, PriorityLevelConfigurations) go upstream with the
// proxy's own identity, not the tenant's: Kubernetes runs no admission on
// admission configuration, so no upstream policy could confine a tenant
// identity allowed to write it, and no tenant identity holds any right on
// these kinds. It is safe because:
//   - the translator has confined every object the proxy writes (selectors
//     and a match condition limited to the tenant's namespaces and
//     identities, service references in its namespaces, no URL, FlowSchema
//     subjects mapped to its identities, bounded shares) and labelled it
//     for the tenant;
//   - only the tenant's admins may (the users who hold the cluster-scoped
//     rights of tenants upstream);
//   - a request that names an object reaches it only when the object
//     carries the tenant's label (ownsConfined: the name's prefix is no
//     ownership), and lists, watches and deletecollection select on that
//     label (the translator adds it; checked again here);
//   - a tenant may have at most KindRule.MaxPerTenant objects of a kind.
// See docs/security.md, "Admission configuration and flow control".

// isConfinedKind reports whether u addresses an AccessProxy kind.
func isConfinedKind(u *translate.UpstreamRequest) bool {
	return u.Info.IsResourceRequest && u.Rule != nil && u.Rule.Access == translate.AccessProxy &&
		u.Rule.Treatment == translate.TenantOwned && u.Info.Namespace == ""
}

// asConfinedWriter returns r with a context that sends its upstream requests
// with the proxy's own identity, once the request is one the tenant may make
// (see above); else the Status to answer.
func (p *Proxy) asConfinedWriter(r *http.Request, u *translate.UpstreamRequest) (*http.Request, *metav1.Status) {
	gr := schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}
	if p.cfg.Direct {
		// No identity of its own to write with (direct.go), and a
		// certificate never carries the admins' group.
		return nil, &apierrors.NewForbidden(gr, u.Info.Name, fmt.Errorf(
			"kubectl-zoo serves with user %q's own credential, and writes %s for tenants only with an identity of its own: "+
				"use the zoo server, or serve with a credential allowed to impersonate", p.impersonatedUser(), u.Info.Resource)).ErrStatus
	}
	if !p.cfg.Admin {
		return nil, &apierrors.NewForbidden(gr, u.Info.Name, fmt.Errorf(
			"User %q cannot %s resource %q in API group %q at the cluster scope: only the tenant's administrators may",
			p.impersonatedUser(), u.Info.Verb, u.Info.Resource, u.Info.APIGroup)).ErrStatus
	}
	own := r.WithContext(context.WithValue(r.Context(), ownIdentityKey{}, true))
	ctx := own.Context()
	switch u.Info.Verb {
	case "list", "watch", "deletecollection":
		if !p.selectsTenant(u.Query.Get("labelSelector")) {
			// The translator adds the selector to every such request; a
			// request without it would reach every tenant's objects.
			klog.ErrorS(nil, "a request of a confined kind selects beyond the tenant", "tenant", p.tenant.Name(), "path", u.Path)
			return nil, &apierrors.NewInternalError(errors.New("kubectl-zoo could not confine the request to the tenant's objects")).ErrStatus
		}
	case "create":
		if u.Info.Subresource != "" {
			break
		}
		if st := p.underTenantLimit(ctx, u, gr); st != nil {
			return nil, st
		}
	default:
		if u.Info.Name == "" {
			return nil, &apierrors.NewMethodNotSupported(gr, u.Info.Verb).ErrStatus
		}
		owned, exists, err := p.ownsConfined(ctx, u)
		if err != nil {
			return nil, &apierrors.NewServiceUnavailable(fmt.Sprintf("kubectl-zoo cannot read %s %q: %v", gr, u.Info.Name, ownReadError(err))).ErrStatus
		}
		if !owned {
			return nil, &apierrors.NewNotFound(gr, u.Info.Name).ErrStatus
		}
		if !exists && u.Info.Verb == "patch" && u.Info.Subresource == "" {
			// A server-side apply of an object that does not exist
			// creates it: it counts as a create.
			if st := p.underTenantLimit(ctx, u, gr); st != nil {
				return nil, st
			}
		}
	}
	return own, nil
}

// selectsTenant reports whether a label selector holds TenantLabel=<tenant>.
func (p *Proxy) selectsTenant(selector string) bool {
	sel, err := labels.Parse(selector)
	if err != nil {
		return false
	}
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		if r.Key() == translate.TenantLabel && r.Values().Len() == 1 && r.Values().Has(p.tenant.Name()) &&
			(r.Operator() == "=" || r.Operator() == "==" || r.Operator() == "in") {
			return true
		}
	}
	return false
}

// ownsConfined reads the object a named request addresses with ctx's
// identity and reports whether it carries the tenant's label, and whether it
// exists. An object that does not exist is reported as owned: the upstream
// answers the request with its own NotFound (or a server-side apply creates
// it, labelled by the translator).
func (p *Proxy) ownsConfined(ctx context.Context, u *translate.UpstreamRequest) (owned, exists bool, err error) {
	var obj objectMeta
	err = p.tenantJSON(ctx, http.MethodGet, confinedObjectPath(u), nil, nil, &obj)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return true, false, nil
	}
	if err != nil {
		return false, false, err
	}
	return obj.Metadata.Labels[translate.TenantLabel] == p.tenant.Name(), true, nil
}

// confinedObjectPath is the upstream path of the object a named request
// addresses (without its subresource).
func confinedObjectPath(u *translate.UpstreamRequest) string {
	if u.Info.Subresource != "" {
		return strings.TrimSuffix(u.Path, "/"+u.Info.Subresource)
	}
	return u.Path
}

// underTenantLimit refuses a create when the tenant already has
// u.Rule.MaxPerTenant objects of the kind (counted with ctx's identity).
// Concurrent creates may overshoot by their number.
func (p *Proxy) underTenantLimit(ctx context.Context, u *translate.UpstreamRequest, gr schema.GroupResource) *metav1.Status {
	limit := u.Rule.MaxPerTenant
	if limit <= 0 {
		return nil
	}
	var list struct {
		Items []struct{} `json:"items"`
	}
	collection := u.Path
	if u.Info.Name != "" {
		collection = path.Dir(confinedObjectPath(u))
	}
	query := url.Values{"labelSelector": {p.tr.TenantSelector()}, "limit": {strconv.Itoa(limit)}}
	if err := p.tenantJSON(ctx, http.MethodGet, collection, query, nil, &list); err != nil {
		return &apierrors.NewServiceUnavailable(fmt.Sprintf("kubectl-zoo cannot count the tenant's %s: %v", gr, ownReadError(err))).ErrStatus
	}
	if len(list.Items) >= limit {
		return &apierrors.NewForbidden(gr, "", fmt.Errorf(
			"a tenant may have at most %d %s: every request of the shared cluster is matched against each of them", limit, gr)).ErrStatus
	}
	return nil
}

// confinedForbidden answers the upstream refusing the proxy's own identity
// a confined kind without naming that identity: with `serve --tenant` the
// caller's kubeconfig lacks the right, with the server its ClusterRole
// (kubectl zoo install --server grants it).
func (p *Proxy) confinedForbidden(w http.ResponseWriter, u *translate.UpstreamRequest, upstream []byte) {
	klog.InfoS("The upstream refused the proxy's own identity on a confined kind", "tenant", p.tenant.Name(),
		"path", u.Path, "upstream", string(upstream))
	writeStatus(w, &apierrors.NewForbidden(schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}, u.Info.Name,
		fmt.Errorf("kubectl-zoo writes %s for tenants with its own identity, and the shared cluster does not let it %s them", u.Info.Resource, u.Info.Verb)).ErrStatus)
}

// ownReadError is err for the tenant's eyes: a refusal of the proxy's own
// identity would name that identity (the server's ServiceAccount is none of
// the tenant's business).
func ownReadError(err error) error {
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusForbidden {
		return errors.New("the shared cluster does not let kubectl-zoo read them")
	}
	return err
}
