package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The Multi-Tenancy Benchmarks' checks that are promises rather than
// attacks: a configuration the tenant's namespaces must carry (a quota of
// compute and storage, of object counts) and what a tenant must be able to
// do itself (bind roles, write NetworkPolicies). A promise kept is held;
// one broken (the configuration is missing, the write is refused) is
// escaped, as an attack that succeeded is.

// errBroken marks an attempt's error as a promise broken, not a refusal of
// the request that checks it.
var errBroken = errors.New("the promise does not hold")

// LayerPromise is the layer of a promise kept: nothing stopped the tenant,
// or the configuration is there.
const LayerPromise = "kept"

// quotaCategory is a kind of resource a ResourceQuota limits.
type quotaCategory func(name corev1.ResourceName) bool

// computeQuota are the quota's compute and storage resources
// (MTB-PL1-CC-FNS-1: CPU, memory and storage).
func computeQuota(name corev1.ResourceName) bool {
	n := strings.TrimPrefix(strings.TrimPrefix(string(name), "requests."), "limits.")
	return n == "cpu" || n == "memory" || n == "storage" || n == "ephemeral-storage"
}

// objectQuota are the quota's object counts (MTB-PL1-CC-FNS-2: claims, load
// balancers, node ports, pods, ...).
func objectQuota(name corev1.ResourceName) bool {
	n := string(name)
	return strings.HasPrefix(n, "count/") || slices.Contains([]corev1.ResourceName{corev1.ResourcePods, corev1.ResourceServices,
		corev1.ResourceServicesLoadBalancers, corev1.ResourceServicesNodePorts, corev1.ResourcePersistentVolumeClaims,
		corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourceReplicationControllers, corev1.ResourceQuotas}, name)
}

// quotaKeys are the names of q of category, sorted.
func quotaKeys(q corev1.ResourceList, category quotaCategory) []string {
	var out []string
	for name := range q {
		if category(name) {
			out = append(out, string(name))
		}
	}
	slices.Sort(out)
	return out
}

// quotaCheck (MTB-PL1-CC-FNS-1 and -2): the attacker's namespace carries the
// policy's quota of category in its zoo-policy ResourceQuota, read as the
// platform admin. The policy's own quota is judged by the policy: none of
// category makes the check not applicable.
func quotaCheck(id, title string, category quotaCategory, what string) Check {
	var want []string // the policy's, set by NotApplicable, which RunCatalog asks first
	return Check{ID: id, Class: ClassMTB, Title: title, Paths: []Path{PathIdentity}, Promise: true,
		NotApplicable: func(p policy.Policy) string {
			if want = quotaKeys(p.Quota, category); len(want) == 0 {
				return "the tenant's policy sets no quota of " + what + " (kubectl zoo policy set --quota); the benchmark asks the platform for one"
			}
			return ""
		},
		Attempt: func(ctx context.Context, t *Target) error {
			q, err := readObject(ctx, t, gvrQuota, upstreamNamespace(t), platformobj.PolicyObjectName)
			if err != nil {
				return err
			}
			hard, _, _ := unstructured.NestedMap(q.Object, "spec", "hard")
			var missing []string
			for _, k := range want {
				if _, ok := hard[k]; !ok {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("%w: the %s ResourceQuota of %s limits none of %v, which the policy sets", errBroken, platformobj.PolicyObjectName, upstreamNamespace(t), missing)
			}
			return nil
		}}
}

// promiseChecks are the benchmarks' promises: the quotas of profile level
// 1 and the self-service operations of level 2.
func promiseChecks() []Check {
	return []Check{
		quotaCheck("MTB-PL1-CC-FNS-1", "Configure namespace resource quotas (CPU, memory, storage)", computeQuota, "CPU, memory or storage"),
		quotaCheck("MTB-PL1-CC-FNS-2", "Configure namespace object limits (object counts)", objectQuota, "object counts"),
		{ID: "MTB-PL2-BC-OPS-3", Class: ClassMTB, Title: "Create role bindings (a Role and a RoleBinding to it, in the tenant's namespace)", Promise: true,
			Attempt: func(ctx context.Context, t *Target) error {
				role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "zoo-verify-ops"},
					Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{translate.ResourceOf("", "Pod")}, Verbs: []string{"get"}}}}
				if _, err := t.Kube.RbacV1().Roles(t.Namespace).Create(ctx, role, dryRun); err != nil {
					return err
				}
				view := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: t.Prefix + "view"} // the tenant's own view
				return createRoleBinding(ctx, t, roleBinding("zoo-verify-ops", t.Namespace, view), dryRun)
			}},
		{ID: "MTB-PL2-BC-OPS-4", Class: ClassMTB, Title: "Create network policies (in the tenant's namespace)", Promise: true,
			Attempt: func(ctx context.Context, t *Target) error {
				np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "zoo-verify-ops"},
					Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": ScratchObject}}}}
				_, err := t.Kube.NetworkingV1().NetworkPolicies(t.Namespace).Create(ctx, np, dryRun)
				return err
			}},
	}
}

// judgePromise turns the answer to a promise's attempt on path into an
// outcome: nil is kept, a refusal or errBroken is broken (escaped).
func judgePromise(err error, path Path) (Status, string, string) {
	if err == nil {
		return Held, LayerPromise, "the tenant could do it, or the configuration is there"
	}
	if errors.Is(err, errBroken) {
		return Escaped, "", oneLine(err.Error(), 300)
	}
	if status, layer, detail := judge(err, path); status == Held {
		return Escaped, "", "refused by " + layer + ": " + detail
	}
	return CouldNotRun, "", oneLine(err.Error(), 300)
}
