package users

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// An upstream user grant (`kubectl zoo tenant user add`) lets a user the
// cluster already knows (OIDC, cloud IAM: alice@corp) act as exactly one
// tenant identity zoo:<tenant>:<as> through `kubectl zoo serve`: a
// ClusterRole and a ClusterRoleBinding of the same name, since impersonation
// is authorized cluster-wide and no RoleBinding can grant it.
//
// Their names start with "zoo:" (as the cluster's own system: roles use
// ':'): no tenant name holds a ':', so no tenant's prefix ever covers them
// and a tenant can neither see them as its own nor write them (admission
// confines a tenant's ClusterRole writes to its prefix).
const (
	// UserGrantPrefix starts the name of every grant's ClusterRole and
	// ClusterRoleBinding: zoo:tenant-user:<tenant>:<hash of the upstream user>.
	UserGrantPrefix = "zoo:tenant-user:"
	// UserGrantTenantLabel names the tenant of a grant (not TenantLabel: a
	// grant is kubectl-zoo's, never the tenant's).
	UserGrantTenantLabel = translate.APIGroup + "/user-grant-of"
	// UpstreamUserAnnotation holds the upstream user of a grant.
	UpstreamUserAnnotation = translate.APIGroup + "/upstream-user"
)

// maxUpstreamUserLength bounds an upstream user name (an OIDC subject with
// its issuer fits).
const maxUpstreamUserLength = 512

// UserGrant is one upstream user's grant of one tenant identity.
type UserGrant struct {
	// Tenant is the tenant whose identity is granted.
	Tenant string `json:"tenant"`
	// UpstreamUser is the user as the cluster authenticates it.
	UpstreamUser string `json:"upstreamUser"`
	// User is the tenant-local user it acts as (zoo:<tenant>:<user>).
	User string `json:"user"`
}

// UserGrantName is the name of the ClusterRole and ClusterRoleBinding of
// upstreamUser's grant in tenant: a hash, since an upstream user name may
// hold characters an object name may not ('/', '%').
func UserGrantName(t translate.Tenant, upstreamUser string) string {
	sum := sha256.Sum256([]byte(upstreamUser))
	return UserGrantPrefix + t.Name() + ":" + hex.EncodeToString(sum[:10])
}

// ValidateUpstreamUser checks the name of an upstream user to grant: not a
// tenant identity (it needs no grant), not a system: user (a
// ServiceAccount, a node, the anonymous user), no control character.
func ValidateUpstreamUser(user string) error {
	switch {
	case user == "":
		return fmt.Errorf("--upstream-user must not be empty")
	case len(user) > maxUpstreamUserLength:
		return fmt.Errorf("upstream user %.40q... is longer than %d characters", user, maxUpstreamUserLength)
	case strings.ContainsFunc(user, unicode.IsControl):
		return fmt.Errorf("upstream user %q holds a control character", user)
	case strings.TrimSpace(user) != user:
		return fmt.Errorf("upstream user %q starts or ends with a space", user)
	case strings.HasPrefix(user, translate.IdentityPrefix):
		return fmt.Errorf("upstream user %q is refused: it is a tenant identity already, which needs no grant", user)
	case strings.HasPrefix(user, "system:"):
		return fmt.Errorf("upstream user %q is refused: system: users (ServiceAccounts, nodes, anonymous) belong to the cluster", user)
	}
	return nil
}

// UserGrantRBAC returns the ClusterRole and ClusterRoleBinding of a grant,
// owned by the tenant's record (owner, with its UID): the garbage collector
// removes them with the record, even one written while the tenant was
// being deleted, and never lets them outlive it into a new tenant of the
// same name. The role allows exactly:
//   - impersonate the user zoo:<tenant>:<user> and the group zoo:tenant:<tenant>
//     (what `serve --tenant T --user U` impersonates for a user who is not
//     an administrator): no other user, group, ServiceAccount, UID or extra
//     (RBAC checks those as users, groups, serviceaccounts, uids and
//     userextras/<key>, none of which it names);
//   - get the tenant's own record (serve reads spec.admins at start).
func UserGrantRBAC(g UserGrant, owner metav1.OwnerReference) (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding, error) {
	t, err := translate.NewTenant(g.Tenant)
	if err != nil {
		return nil, nil, err
	}
	name := UserGrantName(t, g.UpstreamUser)
	meta := metav1.ObjectMeta{
		Name:            name,
		Labels:          map[string]string{tenantapi.ManagedByLabel: tenantapi.ManagedByValue, UserGrantTenantLabel: t.Name()},
		Annotations:     map[string]string{UpstreamUserAnnotation: g.UpstreamUser, platformobj.TenantUserAnnotation: g.User},
		OwnerReferences: []metav1.OwnerReference{owner},
	}
	role := &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: *meta.DeepCopy(),
		Rules: append(platformobj.ImpersonationRules(t.UpstreamUser(g.User), []string{t.TenantGroup()}), rbacv1.PolicyRule{
			APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource}, Verbs: []string{"get"},
			ResourceNames: []string{t.Name()},
		}),
	}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   platformobj.ClusterRoleBindingType,
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: g.UpstreamUser}},
	}
	return role, binding, nil
}

// tenantOwnerRef is the owner reference of an object that must go with the
// tenant's record.
func tenantOwnerRef(name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: tenantapi.TenantGVR.GroupVersion().String(), Kind: tenantapi.TenantKind, Name: name, UID: uid,
	}
}

// userGrantOf reads a grant back from its ClusterRoleBinding; ok is false
// for a binding that is not one (wrong name, subject or annotations).
func userGrantOf(b *rbacv1.ClusterRoleBinding) (UserGrant, bool) {
	tenant := b.Labels[UserGrantTenantLabel]
	g := UserGrant{Tenant: tenant, UpstreamUser: b.Annotations[UpstreamUserAnnotation], User: b.Annotations[platformobj.TenantUserAnnotation]}
	t, err := translate.NewTenant(tenant)
	if err != nil || g.UpstreamUser == "" || b.Name != UserGrantName(t, g.UpstreamUser) {
		return UserGrant{}, false
	}
	return g, true
}
