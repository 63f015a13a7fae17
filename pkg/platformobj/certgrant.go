package platformobj

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A certificate of the cluster's signer (`kubectl zoo cert issue --signer
// kubernetes`) is accepted by the API server until it expires: the API
// server knows no revocation. So such a certificate does not name the
// tenant identity itself: its CN is a user of its own, CertUserPrefix +
// "<tenant>:<id>", in no group, which holds one right only — to impersonate
// exactly the tenant identity (and groups) the certificate stands for — by
// a ClusterRole and ClusterRoleBinding of its own, named CertGrantPrefix +
// "<tenant>:<serial>". `cert revoke` deletes them: from then on the
// certificate authenticates a user that may do nothing, read nor write,
// within the RBAC authorizer's informer delay.
const (
	// CertUserPrefix starts the CN of a certificate of the cluster's
	// signer. It is no tenant identity (those start with "zoo:"), so no
	// tenant RoleBinding, group or admission rule of tenants applies to it.
	CertUserPrefix = "zoo-cert:"
	// CertGrantPrefix starts the name of a certificate's ClusterRole and
	// ClusterRoleBinding.
	CertGrantPrefix = "zoo:cert:"
	// CertGrantTenantLabel names the tenant of a certificate's grant.
	CertGrantTenantLabel = translate.APIGroup + "/cert-of"
	// TenantUserAnnotation holds the tenant-local user a grant (of a
	// certificate, or of a tenant user) lets its upstream user act as.
	TenantUserAnnotation = translate.APIGroup + "/tenant-user"
)

// CertGrant is the grant of one certificate of the cluster's signer.
type CertGrant struct {
	// Tenant, Serial: the certificate's (serial in lower-case hex).
	Tenant, Serial string
	// CertUser is the certificate's CN (CertUserPrefix...).
	CertUser string
	// User and Groups are the tenant-local user and groups it acts as.
	User   string
	Groups []string
}

// CertGrantName is the name of the ClusterRole and ClusterRoleBinding of
// the certificate with serial in tenant t.
func CertGrantName(t translate.Tenant, serial string) string {
	return CertGrantPrefix + t.Name() + ":" + serial
}

// IsCertUser reports whether user is the CN of a certificate of the
// cluster's signer, and of which tenant.
func IsCertUser(user string) (tenant string, ok bool) {
	rest, ok := strings.CutPrefix(user, CertUserPrefix)
	if !ok {
		return "", false
	}
	tenant, id, ok := strings.Cut(rest, ":")
	return tenant, ok && id != "" && translate.ValidateTenantName(tenant) == nil
}

// CertGrantRBAC returns the ClusterRole and ClusterRoleBinding of g, owned
// by the tenant's record (they go with it). The role allows exactly the
// impersonation of zoo:<tenant>:<user>, of the group zoo:tenant:<tenant>
// and of the certificate's groups zoo:<tenant>:<group>: no other user or
// group (never zoo:admins), no ServiceAccount, UID or extra.
func CertGrantRBAC(g CertGrant, owner metav1.OwnerReference) (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding, error) {
	t, err := translate.NewTenant(g.Tenant)
	if err != nil {
		return nil, nil, err
	}
	if tenant, ok := IsCertUser(g.CertUser); !ok || tenant != t.Name() {
		return nil, nil, fmt.Errorf("%q is not the user of a certificate of tenant %s", g.CertUser, t)
	}
	name := CertGrantName(t, g.Serial)
	meta := metav1.ObjectMeta{
		Name:            name,
		Labels:          map[string]string{tenantapi.ManagedByLabel: tenantapi.ManagedByValue, CertGrantTenantLabel: t.Name()},
		Annotations:     map[string]string{TenantUserAnnotation: g.User},
		OwnerReferences: []metav1.OwnerReference{owner},
	}
	role := &rbacv1.ClusterRole{
		TypeMeta:   ClusterRoleType,
		ObjectMeta: *meta.DeepCopy(),
		Rules:      ImpersonationRules(t.UpstreamUser(g.User), t.UpstreamGroups(g.Groups, false)),
	}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   ClusterRoleBindingType,
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: g.CertUser}},
	}
	return role, binding, nil
}

// ImpersonationRules let a ClusterRole's subject impersonate exactly the
// user and the groups named: no other user, no ServiceAccount, UID or
// extra (a certificate's grant, a tenant user's grant).
func ImpersonationRules(user string, groups []string) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"users"}, Verbs: []string{"impersonate"}, ResourceNames: []string{user},
	}, {
		APIGroups: []string{""}, Resources: []string{"groups"}, Verbs: []string{"impersonate"}, ResourceNames: groups,
	}}
}
