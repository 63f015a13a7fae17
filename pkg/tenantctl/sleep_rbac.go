package tenantctl

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// sleepRules are the rights of the server's ServiceAccount for sleep and
// wake (sleep.go): the server wakes a sleeping tenant before a write that
// may run pods, puts a tenant to sleep after its policy's sleepAfter
// without a request, and records the tenant's last activity. It updates the
// record's status, lists the tenant's workloads (not its pods: the
// server's sleep leaves bare pods and Jobs alone, SleepOptions.NoPods), and
// scales the workloads (their scale subresource) and suspends CronJobs.
// RBAC cannot confine them to tenant namespaces; the server's impersonation
// already makes it as strong (docs/security.md).
func sleepRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{translate.APIGroup}, Resources: []string{TenantResource + "/status"}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets", "replicasets"}, Verbs: []string{"list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale", "statefulsets/scale", "replicasets/scale"}, Verbs: []string{"patch"}},
		{APIGroups: []string{""}, Resources: []string{"replicationcontrollers"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"replicationcontrollers/scale"}, Verbs: []string{"patch"}},
		{APIGroups: []string{"batch"}, Resources: []string{"cronjobs"}, Verbs: []string{"list", "patch"}},
	}
}
