package install

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// SleepClusterRole is the name of the ClusterRole of translate.SleepUser.
const SleepClusterRole = "zoo-sleep"

// SleepClusterRoleObject is what translate.SleepUser may do: read a Tenant
// record and write its status (the sleep state), list the workloads sleep
// scales and scale them through their scale subresource, list and patch
// CronJobs. `tenant sleep|wake` and the server act as it by impersonation,
// so that tenants' admission skips their requests (translate.SleepUser).
// RBAC cannot confine these rights to tenant namespaces; nobody but the
// platform may impersonate that user.
func SleepClusterRoleObject() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   platformobj.ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: SleepClusterRole, Labels: tenantapi.ManagedLabels()},
		Rules: append([]rbacv1.PolicyRule{
			{APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource}, Verbs: []string{"get"}},
			{APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource + "/status"}, Verbs: []string{"get", "update"}},
		}, sleepKindRules()...),
	}
}

// sleepKindRules are the rights sleep needs on the kinds it puts to sleep
// (translate.SleepKinds), per group in table order: list those it scales
// and patch their scale subresource; list and patch those it suspends.
func sleepKindRules() []rbacv1.PolicyRule {
	var groups []string
	scaled, suspended := map[string][]string{}, map[string][]string{}
	for _, row := range translate.SleepKinds() {
		g := row.Resource.Group
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if row.Sleep == translate.SleepScale {
			scaled[g] = append(scaled[g], row.Resource.Resource)
		} else {
			suspended[g] = append(suspended[g], row.Resource.Resource)
		}
	}
	var rules []rbacv1.PolicyRule
	for _, g := range groups {
		if res := scaled[g]; len(res) > 0 {
			scales := make([]string, len(res))
			for i, r := range res {
				scales[i] = r + "/scale"
			}
			rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: res, Verbs: []string{"list"}},
				rbacv1.PolicyRule{APIGroups: []string{g}, Resources: scales, Verbs: []string{"patch"}})
		}
		if res := suspended[g]; len(res) > 0 {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: res, Verbs: []string{"list", "patch"}})
		}
	}
	return rules
}

// SleepClusterRoleBinding binds SleepClusterRoleObject to
// translate.SleepUser: one ClusterRoleBinding, not one per tenant.
func SleepClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   platformobj.ClusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: SleepClusterRole, Labels: tenantapi.ManagedLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: SleepClusterRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: translate.SleepUser}},
	}
}

// sleepRules are the rights of the server's ServiceAccount for sleep and
// wake (pkg/tenantctl/sleep.go) beyond impersonating translate.SleepUser, which it may
// already: it records a tenant's last activity in its record's status
// (pkg/tenantctl/sleep_activity.go). It lists no pods: the server's sleep leaves bare
// pods and Jobs alone (SleepOptions.NoPods).
func sleepRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource + "/status"}, Verbs: []string{"get", "update", "patch"}},
	}
}
