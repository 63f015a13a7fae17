package propagate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// readOnly is the reason the refusals name.
const readOnly = "are propagated by kubectl-zoo"

// TestPolicyObjectsAreReadOnlyForTheTenant attacks the policy objects of a
// tenant namespace through the proxy, with the tenant's identity directly
// upstream and with a tenant pod's ServiceAccount token: none can be
// deleted, changed (opening the NetworkPolicy to every peer, lifting the
// quota), relabeled, or forged; the tenant still makes its own quotas and
// NetworkPolicies.
func TestPolicyObjectsAreReadOnlyForTheTenant(t *testing.T) {
	createTenant(t, "pro")
	s := serve(t, "pro")
	ns := "pro-default"
	requirePolicyObjects(t, "pro", ns, true, false)

	refused := func(args ...string) {
		t.Helper()
		res := kubectl(t.Context(), s.kubeconfig, "", args...)
		require.Error(t, res.Err, "kubectl %v must be refused:\n%s", args, res.Stdout)
		assert.Contains(t, res.Stderr, readOnly, "kubectl %v", args)
		assert.Contains(t, res.Stderr, "Forbidden", "kubectl %v: a 403", args)
		assert.NotContains(t, res.Stderr, "pro-default", "kubectl %v: tenant names", args)
	}
	t.Run("through the proxy", func(t *testing.T) {
		refused("delete", "resourcequota", platformobj.PolicyObjectName, "-n", "default")
		refused("delete", "networkpolicy", platformobj.PolicyObjectName, "-n", "default")
		refused("delete", "resourcequotas", "--all", "-n", "default")
		refused("patch", "resourcequota", platformobj.PolicyObjectName, "-n", "default", "--type", "merge", "-p", `{"spec":{"hard":{"pods":"1000"}}}`)
		refused("patch", "networkpolicy", platformobj.PolicyObjectName, "-n", "default", "--type", "merge", "-p", `{"spec":{"ingress":[{}]}}`)
		refused("label", "resourcequota", platformobj.PolicyObjectName, "-n", "default", translate.PropagatedFromLabel+"-")
		refused("label", "networkpolicy", platformobj.PolicyObjectName, "-n", "default", "x=y")

		forged := `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"forged","labels":{"` + translate.PropagatedFromLabel + `":"policy"}},"spec":{}}`
		res := kubectl(t.Context(), s.kubeconfig, forged, "create", "-n", "default", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, readOnly)

		// Its own quota and NetworkPolicy (open to all: its consent for
		// its own pods), yes; passing them off as the platform's, no.
		res = kubectl(t.Context(), s.kubeconfig, "", "create", "quota", "mine", "-n", "default", "--hard=pods=1")
		require.NoError(t, res.Err, res.Stderr)
		own := `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"open"},"spec":{"podSelector":{},"ingress":[{}]}}`
		res = kubectl(t.Context(), s.kubeconfig, own, "create", "-n", "default", "-f", "-")
		require.NoError(t, res.Err, res.Stderr)
		// "Every namespace" in its own policies is every namespace of its
		// cluster upstream: the confinement holds.
		all := `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"mine"},"spec":{"podSelector":{},"egress":[{"to":[{"namespaceSelector":{}}]}]}}`
		res = kubectl(t.Context(), s.kubeconfig, all, "create", "-n", "default", "-f", "-")
		require.NoError(t, res.Err, res.Stderr)
		np, err := framework.AdminClient(t).NetworkingV1().NetworkPolicies(ns).Get(t.Context(), "mine", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, []metav1.LabelSelectorRequirement{{Key: translate.TenantLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"pro"}}},
			np.Spec.Egress[0].To[0].NamespaceSelector.MatchExpressions)
		refused("label", "resourcequota", "mine", "-n", "default", translate.PropagatedFromLabel+"=policy")
		res = kubectl(t.Context(), s.kubeconfig, "", "delete", "resourcequota", "mine", "-n", "default")
		require.NoError(t, res.Err, res.Stderr)
	})

	forbidden := func(err error, what string) {
		t.Helper()
		require.True(t, apierrors.IsForbidden(err), "%s: %v", what, err)
		assert.Contains(t, err.Error(), readOnly, what)
	}
	attack := func(t *testing.T, c kubernetes.Interface) {
		t.Helper()
		ctx := t.Context()
		forbidden(c.CoreV1().ResourceQuotas(ns).Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}), "delete the quota")
		forbidden(c.NetworkingV1().NetworkPolicies(ns).Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}), "delete the network policy")
		forbidden(c.CoreV1().ResourceQuotas(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}), "delete every quota")
		np, err := c.NetworkingV1().NetworkPolicies(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		require.NoError(t, err, "the tenant reads its policy objects")
		np.Spec.Ingress = append(np.Spec.Ingress, np.Spec.Ingress[0])
		np.Spec.Ingress[1].From = nil // from everywhere
		_, err = c.NetworkingV1().NetworkPolicies(ns).Update(ctx, np, metav1.UpdateOptions{})
		forbidden(err, "open the network policy")
		rq := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "forged", Labels: map[string]string{translate.PropagatedFromLabel: translate.PropagatedFromPolicy}}}
		_, err = c.CoreV1().ResourceQuotas(ns).Create(ctx, rq, metav1.CreateOptions{})
		forbidden(err, "forge a policy quota")
		requirePolicyObjects(t, "pro", ns, true, false)
	}
	t.Run("directly upstream", func(t *testing.T) { attack(t, asTenant(t, "pro")) })
	t.Run("with a tenant pod's ServiceAccount token", func(t *testing.T) { attack(t, tenantBot(t, ns)) })
}

// tenantBot is a client with the token of a ServiceAccount of tenant
// namespace ns that holds zoo-tenant-admin there: every right a tenant's
// pod can be given in its namespace.
func tenantBot(t *testing.T, ns string) kubernetes.Interface {
	t.Helper()
	admin := framework.AdminClient(t)
	ctx := t.Context()
	_, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "bot"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "bot"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "bot", Namespace: ns}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantAdminClusterRole}}, metav1.CreateOptions{})
	require.NoError(t, err)
	tok, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "bot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := rest.AnonymousClientConfig(adminConfig(t))
	cfg.BearerToken = tok.Status.Token
	bot, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	require.Eventually(t, func() bool { // it holds every right in the namespace
		_, err = bot.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bot"}}, metav1.CreateOptions{})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond, "the ServiceAccount may write in its namespace: %v", err)
	return bot
}

// reserved is the reason a create of an object named like the policy's
// names; quotaOfPolicyObjects the reason a tenant's quota may not count
// them.
const (
	reserved             = "the name is reserved"
	quotaOfPolicyObjects = "may not limit count/limitranges"
)

// TestPolicyObjectNameIsReservedFromTheTenant: the tenant may not create a
// ResourceQuota, LimitRange or NetworkPolicy named like the policy's, even
// where the policy's are missing (deleted by the admin here; a squatter is
// deleted and replaced by the reconcile, and made again in between it would
// be merged into), nor a ResourceQuota that counts them (quota admission
// would refuse kubectl-zoo's) — through the proxy, directly upstream, and
// with a tenant pod's ServiceAccount token. Other names and quotas stay the
// tenant's to use.
func TestPolicyObjectNameIsReservedFromTheTenant(t *testing.T) {
	createTenant(t, "prs")
	s := serve(t, "prs")
	ns := "prs-default"
	requirePolicyObjects(t, "prs", ns, true, false)
	admin := framework.AdminClient(t)
	ctx := t.Context()
	// Where the policy's are missing, a create (or apply) would be a create.
	require.NoError(t, admin.NetworkingV1().NetworkPolicies(ns).Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}))
	require.NoError(t, admin.CoreV1().ResourceQuotas(ns).Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{}))
	// Without a quota labeled as the policy's the namespace admits no create
	// at all (zoo-tenant-policy-objects): a stand-in so labeled keeps it
	// open, so that the refusals below are zoo-tenant's own.
	_, err := admin.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "standin",
		Labels: platformobj.PolicyObjectLabels(translate.MustTenant("prs"))}}, metav1.CreateOptions{})
	require.NoError(t, err)
	gateOpen(t, ns)

	squatters := map[string]string{
		"ResourceQuota": `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"zoo-policy"},"spec":{"scopes":["BestEffort"]}}`,
		"LimitRange":    `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"zoo-policy"},"spec":{"limits":[{"type":"Container","max":{"cpu":"100"}}]}}`,
		"NetworkPolicy": `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"zoo-policy"},"spec":{"podSelector":{"matchLabels":{"none":"none"}}}}`,
	}
	t.Run("through the proxy", func(t *testing.T) {
		for kind, manifest := range squatters {
			for _, verb := range []string{"create", "apply"} {
				args := []string{verb, "-n", "default", "-f", "-"}
				if verb == "apply" {
					args = append(args, "--server-side")
				}
				res := kubectl(ctx, s.kubeconfig, manifest, args...)
				require.Error(t, res.Err, "%s %s must be refused:\n%s", verb, kind, res.Stdout)
				assert.Contains(t, res.Stderr, reserved, "%s %s", verb, kind)
				assert.Contains(t, res.Stderr, "Forbidden", "%s %s: a 403", verb, kind)
				assert.NotContains(t, res.Stderr, ns, "%s %s: tenant names", verb, kind)
			}
		}
		res := kubectl(ctx, s.kubeconfig, "", "create", "quota", "zoo-policy-mine", "-n", "default", "--hard=pods=5")
		require.NoError(t, res.Err, "another name is the tenant's: %s", res.Stderr)
		for _, counted := range []string{"count/networkpolicies.networking.k8s.io=0", "count/limitranges=0"} {
			res := kubectl(ctx, s.kubeconfig, "", "create", "quota", "blocker", "-n", "default", "--hard="+counted)
			require.Error(t, res.Err, "a quota of %s must be refused:\n%s", counted, res.Stdout)
			assert.Contains(t, res.Stderr, quotaOfPolicyObjects, counted)
		}
	})

	attack := func(t *testing.T, c kubernetes.Interface) {
		t.Helper()
		meta := metav1.ObjectMeta{Name: platformobj.PolicyObjectName}
		_, err := c.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{ObjectMeta: meta,
			Spec: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}}, metav1.CreateOptions{})
		reservedRefusal(t, err, "ResourceQuota")
		_, err = c.CoreV1().LimitRanges(ns).Create(ctx, &corev1.LimitRange{ObjectMeta: meta,
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer}}}}, metav1.CreateOptions{})
		reservedRefusal(t, err, "LimitRange")
		_, err = c.NetworkingV1().NetworkPolicies(ns).Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: meta,
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"none": "none"}}}}, metav1.CreateOptions{})
		reservedRefusal(t, err, "NetworkPolicy")
		_, err = c.NetworkingV1().NetworkPolicies(ns).Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{GenerateName: "zoo-"},
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{}}}, metav1.CreateOptions{})
		require.NoError(t, err, "other names are the tenant's")

		// A quota that would make quota admission refuse the policy's
		// objects (a namespace made directly upstream, blocked before the
		// reconcile makes them).
		blocker := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "blocker"},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"count/networkpolicies.networking.k8s.io": resource.MustParse("0")}}}
		_, err = c.CoreV1().ResourceQuotas(ns).Create(ctx, blocker, metav1.CreateOptions{})
		require.True(t, apierrors.IsForbidden(err), "a quota of NetworkPolicies: %v", err)
		assert.Contains(t, err.Error(), quotaOfPolicyObjects)
		blocker.Spec.Hard = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}
		_, err = c.CoreV1().ResourceQuotas(ns).Create(ctx, blocker, metav1.CreateOptions{})
		require.NoError(t, err, "a quota of pods is the tenant's")
		_, err = c.CoreV1().ResourceQuotas(ns).Patch(ctx, "blocker", types.MergePatchType,
			[]byte(`{"spec":{"hard":{"count/limitranges":"0"}}}`), metav1.PatchOptions{})
		require.True(t, apierrors.IsForbidden(err), "a change that limits LimitRanges: %v", err)
		require.NoError(t, c.CoreV1().ResourceQuotas(ns).Delete(ctx, "blocker", metav1.DeleteOptions{}))
	}
	t.Run("directly upstream", func(t *testing.T) { attack(t, asTenant(t, "prs")) })
	t.Run("with a tenant pod's ServiceAccount token", func(t *testing.T) { attack(t, tenantBot(t, ns)) })
}

func reservedRefusal(t *testing.T, err error, kind string) {
	t.Helper()
	require.True(t, apierrors.IsForbidden(err), "%s named %s: %v", kind, platformobj.PolicyObjectName, err)
	assert.Contains(t, err.Error(), reserved, kind)
}
