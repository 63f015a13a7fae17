package localproxy

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// With Config.Direct the upstream credential is a tenant user's own (a
// client certificate from `kubectl zoo cert issue --signer kubernetes`): the
// proxy impersonates no one and has no identity of its own, so every read
// it makes for itself is made as that tenant user, who could make it
// directly upstream with the same credential. Nothing the proxy does in this
// mode can show the tenant more than its identity may read upstream; the
// proxy's answers are a convenience, RBAC and admission are the boundary.
// No right is granted upstream for this mode: every grant of a cluster-scoped
// object to one tenant (its own Tenant record, say) would be one more
// ClusterRoleBinding, which the API server's RBAC authorizer scans on every
// request of the cluster (docs/security.md, "Nothing per tenant is
// cluster-wide"). What the proxy reads for itself
// elsewhere, and what it does here instead:
//
//   - the tenant's namespaces (all-namespaces lists and watches,
//     namespaces.go): a tenant identity may not list namespaces (the list
//     names every tenant's), so such a request gets Forbidden with a message
//     that says why (directNamespacesError); requests in a named namespace
//     work as they do for any tenant user;
//   - the Tenant record (its Pod Security level, platform.go): unreadable, so
//     the proxy judges a namespace's Pod Security labels against the
//     strictest level (directPodSecurityLevel); the upstream's zoo-tenant-metadata
//     policy judges the real one;
//   - PriorityClasses (platform.go): not read; the upstream's
//     zoo-tenant-priority policy judges every pod;
//   - shared objects (shared.go): read as the tenant, which may read none,
//     so a reference resolves to the cluster's object of the name;
//   - the tenants' names (other_tenants.go): not read; no name is another
//     tenant's (the tenant reads the same answers directly upstream);
//   - cluster-scoped objects of the tenant's CRD groups (tenant_group.go):
//     sent as the tenant, whose RBAC decides;
//   - discovery (scopes.go) and the stored bindings of ClusterRoleBindings
//     (crbstore): read as the tenant; discovery is every identity's.
//
// A certificate never carries translate.AdminsGroup (pkg/certs refuses
// it), so a tenant administrator serving with its own certificate has its
// rights inside the tenant's namespaces but none of the cluster-scoped rights
// of tenant admins (creating namespaces, CRDs, ClusterRoles, ...): the
// upstream refuses those, as it would directly. docs/certificates.md,
// "Running serve with your certificate".

// directPodSecurityLevel is the level the proxy judges Pod Security labels
// against when it cannot read the tenant's record: the strictest.
var directPodSecurityLevel = translate.PodSecurityLevels[len(translate.PodSecurityLevels)-1]

// directNamespacesError is the answer to a request that needs the list of
// the tenant's namespaces when the proxy serves with the tenant user's own
// credential, which may not list namespaces upstream.
func (p *Proxy) directNamespacesError() error {
	return apierrors.NewForbidden(namespacesResource, "", fmt.Errorf(
		"kubectl-zoo serves with user %q's own credential, which may not list namespaces upstream (that list names every tenant's): "+
			"name a namespace, or serve with a credential allowed to impersonate, or use the zoo server", p.impersonatedUser()))
}

// namespacesStatus is the Status of a failure to list the tenant's
// namespaces.
func (p *Proxy) namespacesStatus(err error) *metav1.Status {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		return &s
	}
	return unavailable(p.base.Host, err)
}
