package install

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

var roleType = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"}

// ServerClusterRole returns the ClusterRole of the server's ServiceAccount.
// It is aggregated: the cluster's aggregation controller fills its rules
// from the ClusterRoles labeled ServerAggregateLabel=true, which are
// ServerBaseClusterRole and, per cluster-scoped CRD of a tenant, a
// CRDServerClusterRole that the tenant itself writes (TenantPolicy confines
// its rules to the tenant's own API groups). RBAC cannot grant "every API
// group with prefix acme-", and a binding per CRD would cost a
// ClusterRoleBinding each; aggregation keeps one binding.
func ServerClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerName, Labels: serverLabels()},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{
			MatchLabels: map[string]string{tenantapi.ServerAggregateLabel: "true"},
		}}},
	}
}

// ServerBaseClusterRole returns the fixed rights of the server's
// ServiceAccount (aggregated into ServerClusterRole): every right the server
// uses with its own identity upstream, and nothing else. Each rule says
// which call needs it; docs/server.md has the same table. Impersonation
// makes this identity as strong as cluster-admin (docs/security.md, "The
// server's ServiceAccount").
func ServerBaseClusterRole() *rbacv1.ClusterRole {
	rules := []rbacv1.PolicyRule{
		// The server acts upstream as the caller's tenant identity:
		// zoo:<tenant>:<user> with the groups zoo:tenant:<tenant>,
		// zoo:<tenant>:<group> (and zoo:admins), or a tenant pod's
		// ServiceAccount with its groups. RBAC cannot confine impersonation
		// to names with a prefix, so this is every user, group and
		// ServiceAccount.
		{APIGroups: []string{""}, Resources: []string{"users", "groups", translate.ResourceOf("", "ServiceAccount")}, Verbs: []string{"impersonate"}},
		// No userextras: the proxy passes no extra fields upstream (the
		// server impersonates users, groups and ServiceAccounts only).
		// RBAC checks an extra as "userextras/<key>" with no wildcard for
		// the key: passing extras would need "*" in authentication.k8s.io.
		// Bearer tokens of callers (a tenant pod's ServiceAccount token)
		// are authenticated with TokenReview.
		kindRule("authentication.k8s.io", "TokenReview", "create"),
		// /metrics is served to callers allowed `get` on the non-resource
		// URL /metrics, asked with SubjectAccessReview.
		kindRule("authorization.k8s.io", "SubjectAccessReview", "create"),
		// Tenant records: the server's informer (get/list/watch), the
		// proxy's read of the caller's tenant (tenant_record.go) and its
		// list of the other tenants, left out of lists of shared kinds
		// (shared_tenants.go).
		{APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource}, Verbs: platformobj.ReadVerbs},
		// The tenant's namespaces: listed and watched by label for the
		// fan-out of all-namespaces lists and watches (namespaces.go,
		// fanout_watch.go), read one by one for the priority classes a
		// namespace may use (platform.go). A tenant user who is not an
		// admin may not list namespaces upstream.
		kindRule("", "Namespace", platformobj.ReadVerbs...),
		// The tenant's stored ClusterRoleBindings, read by name and listed
		// by the tenant label when they are granted in a namespace
		// (crbstore.Grants.Own; the writes impersonate the tenant).
		kindRule(rbacv1.GroupName, "ClusterRoleBinding", "get", "list"),
		// The API access of tenant pods (pkg/localproxy/apiaccess.go): before
		// a pod or pod template is written, the ConfigMap the pods read the
		// server's address, CA and their tenant-side namespace from is made
		// or refreshed in the pod's namespace (only a namespace labelled for
		// the writing tenant). RBAC cannot confine create by name.
		kindRule("", "ConfigMap", "create"),
		named(kindRule("", "ConfigMap", "get", "update"), translate.APIAccessName),
	}
	// The objects a tenant's policy implies in each tenant namespace
	// (propagate*.go): the proxy makes them when a tenant creates a
	// namespace, the reconcile loop watches them to repair drift, and
	// deletes those the policy no longer implies (and an unlabeled one in
	// their way). RBAC cannot confine them to tenant namespaces.
	rules = append(rules, policyObjectRules()...)
	// The namespace limit of tenants (pkg/policyctl/maxns.go): the RoleBinding
	// that marks a tenant at its limit, in its kube-system, listed, made
	// and deleted after the tenant's namespace creates and deletes; it
	// binds NamespaceLimitClusterRole, which the server may bind without
	// holding its right. The set-up of tenant namespaces (pkg/nssetup)
	// watches the admins' RoleBindings and those of tenant
	// ClusterRoleBindings, and deletes an admins' RoleBinding a tenant
	// changed (made again impersonating one of its admins).
	rules = append(rules,
		kindRule(rbacv1.GroupName, "RoleBinding", "list", "watch", "create", "delete"),
		named(kindRule(rbacv1.GroupName, "ClusterRole", "bind"), policyctl.NamespaceLimitClusterRole))
	// Objects of shared kinds a tenant names (a storage class, a priority
	// class) are read one by one to learn whose they are (shared.go,
	// platform.go's priority class values).
	rules = append(rules, sharedKindRules()...)
	// Admission configuration and flow control of tenants are written with
	// the server's own identity once the translator has confined them
	// (pkg/localproxy/confined.go): no tenant identity may write them.
	rules = append(rules, confinedKindRules()...)
	// Sleep and wake of tenants (sleep_rbac.go).
	rules = append(rules, sleepRules()...)
	// A tenant CRD group is served with the server's own identity only when
	// its CustomResourceDefinition carries the tenant's label (a prefix
	// alone is no ownership: cert-manager.io starts with a tenant "cert"),
	// read one by one (tenant_group_owner.go).
	rules = append(rules, kindRule("apiextensions.k8s.io", "CustomResourceDefinition", "get"))
	// Discovery of the upstream's resources and their scopes (scopes.go).
	// system:discovery grants it to every authenticated user by default;
	// the server does not rely on that default.
	rules = append(rules, rbacv1.PolicyRule{NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*"}, Verbs: []string{"get"}})
	labels := serverLabels()
	labels[tenantapi.ServerAggregateLabel] = "true"
	return &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerBaseName, Labels: labels},
		Rules:      rules,
	}
}

// sharedKindRules are `get` rules for every kind the kinds table treats as
// Shared, one rule per API group, derived (never copied) from the table.
func sharedKindRules() []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	for _, k := range translate.Kinds() {
		if k.Treatment == translate.Shared {
			byGroup[k.Resource.Group] = append(byGroup[k.Resource.Group], k.Resource.Resource)
		}
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, strings.Compare)
	rules := make([]rbacv1.PolicyRule, 0, len(groups))
	for _, g := range groups {
		res := byGroup[g]
		slices.Sort(res)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: slices.Compact(res), Verbs: []string{"get"}})
	}
	return rules
}

// confinedKindRules grant every verb on the kinds the proxy serves with its
// own identity (translate.AccessProxy) and their status, one rule per API
// group, derived (never copied) from the kinds table.
func confinedKindRules() []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	for _, k := range translate.Kinds() {
		if k.Access != translate.AccessProxy {
			continue
		}
		byGroup[k.Resource.Group] = append(byGroup[k.Resource.Group], k.Resource.Resource)
		if k.SubresourceOf("status").Class.Writable() {
			byGroup[k.Resource.Group] = append(byGroup[k.Resource.Group], k.Resource.Resource+"/status")
		}
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, strings.Compare)
	rules := make([]rbacv1.PolicyRule, 0, len(groups))
	for _, g := range groups {
		res := byGroup[g]
		slices.Sort(res)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: res, Verbs: platformobj.WriteVerbs})
	}
	return rules
}

// ServerClusterRoleBinding binds ServerClusterRole to the server's
// ServiceAccount.
func ServerClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   platformobj.ClusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerName, Labels: serverLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.ServerName},
		Subjects:   []rbacv1.Subject{serverSubject()},
	}
}

// ServerAuthenticationRole is the Role in kube-system that lets the server
// read (and watch) the one ConfigMap holding the cluster's client CA,
// extension-apiserver-authentication, against which it verifies tenants'
// client certificates.
func ServerAuthenticationRole() *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   roleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerAuthenticationReader, Namespace: metav1.NamespaceSystem, Labels: serverLabels()},
		Rules:      []rbacv1.PolicyRule{named(kindRule("", "ConfigMap", platformobj.ReadVerbs...), tenantapi.ClientCAConfigMap)},
	}
}

// ServerAuthenticationRoleBinding binds ServerAuthenticationRole to the
// server's ServiceAccount.
func ServerAuthenticationRoleBinding() *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   platformobj.RoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerAuthenticationReader, Namespace: metav1.NamespaceSystem, Labels: serverLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: tenantapi.ServerAuthenticationReader},
		Subjects:   []rbacv1.Subject{serverSubject()},
	}
}

// policyObjectVerbs are the verbs of the server on policy objects:
// server-side apply (create, patch), the loop's informers (list, watch) and
// deletes.
var policyObjectVerbs = []string{"get", "list", "watch", "create", "patch", "delete"}

// ServerPolicyLockRole is the Role in kube-system that lets the server take
// a tenant's policy lock (a Lease, pkg/policyctl/propagate_lock.go). RBAC cannot confine
// create to the names zoo-policy-*; the server's impersonation right is
// stronger anyway.
func ServerPolicyLockRole() *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   roleType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerPolicyLocks, Namespace: policyctl.LockNamespace, Labels: serverLabels()},
		Rules:      []rbacv1.PolicyRule{kindRule("coordination.k8s.io", "Lease", "get", "create", "update")},
	}
}

// ServerPolicyLockRoleBinding binds ServerPolicyLockRole to the server's
// ServiceAccount.
func ServerPolicyLockRoleBinding() *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   platformobj.RoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerPolicyLocks, Namespace: policyctl.LockNamespace, Labels: serverLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: tenantapi.ServerPolicyLocks},
		Subjects:   []rbacv1.Subject{serverSubject()},
	}
}

func serverSubject() rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: tenantapi.ServerNamespace, Name: tenantapi.ServerName}
}

// policyObjectRules grant policyObjectVerbs on the policy objects
// (translate.PolicyObjectResources), one rule per group.
func policyObjectRules() []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, gr := range translate.PolicyObjectResources() {
		if n := len(out); n > 0 && out[n-1].APIGroups[0] == gr.Group {
			out[n-1].Resources = append(out[n-1].Resources, gr.Resource)
			continue
		}
		out = append(out, rbacv1.PolicyRule{APIGroups: []string{gr.Group}, Resources: []string{gr.Resource}, Verbs: policyObjectVerbs})
	}
	return out
}

// kindRule grants verbs on the resource of a built-in kind, named by its
// row of the kinds table (translate.ResourceOf).
func kindRule(group, kind string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{translate.ResourceOf(group, kind)}, Verbs: verbs}
}

// named confines rule to the objects named names.
func named(rule rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
	rule.ResourceNames = names
	return rule
}
