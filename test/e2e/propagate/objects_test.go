package propagate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestPolicyObjectsInANamespaceMadeThroughServe: `tenant create` gives the
// standard namespaces their policy objects; a namespace the tenant creates
// through `kubectl zoo serve` has them as soon as the create is answered;
// the tenant sees them; the quota's shares add up to the tenant-wide quota;
// the NetworkPolicy admits only the tenant's namespaces.
func TestPolicyObjectsInANamespaceMadeThroughServe(t *testing.T) {
	createTenant(t, "pserve")
	for _, ns := range tenantNamespaces(t, "pserve") {
		requirePolicyObjects(t, "pserve", ns, true, false)
	}
	setPolicy(t, "pserve", policy.Policy{Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("20")},
		LimitRange: &policy.LimitRange{Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}}})
	s := serve(t, "pserve")

	res := kubectl(t.Context(), s.kubeconfig, "", "create", "namespace", "team")
	require.NoError(t, res.Err, res.Stderr)
	requirePolicyObjects(t, "pserve", "pserve-team", true, true) // no waiting: made before the answer

	res = kubectl(t.Context(), s.kubeconfig, "", "get", "resourcequota,limitrange,networkpolicy", "-n", "team", "-o", "name")
	require.NoError(t, res.Err, res.Stderr)
	for _, want := range []string{"resourcequota/zoo-policy", "limitrange/zoo-policy", "networkpolicy.networking.k8s.io/zoo-policy"} {
		assert.Contains(t, res.Stdout, want, "the tenant sees its policy objects")
	}

	// In the tenant's view the peer is "every namespace" (of its cluster).
	res = kubectl(t.Context(), s.kubeconfig, "", "get", "networkpolicy", platformobj.PolicyObjectName, "-n", "team", "-o", "jsonpath={.spec.ingress[0].from[0]}")
	require.NoError(t, res.Err, res.Stderr)
	assert.JSONEq(t, `{"namespaceSelector":{}}`, res.Stdout)

	admin := framework.AdminClient(t)
	var total resource.Quantity
	for _, ns := range tenantNamespaces(t, "pserve") {
		requirePolicyObjects(t, "pserve", ns, true, true)
		rq, err := admin.CoreV1().ResourceQuotas(ns).Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
		require.NoError(t, err)
		total.Add(rq.Spec.Hard[corev1.ResourcePods])
	}
	assert.Equal(t, int64(20), total.Value(), "the namespaces' shares add up to the tenant-wide quota")

	np, err := admin.NetworkingV1().NetworkPolicies("pserve-team").Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, np.Spec.PodSelector.MatchLabels)
	assert.ElementsMatch(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	require.Len(t, np.Spec.Ingress, 1)
	require.Len(t, np.Spec.Ingress[0].From, 1)
	from := np.Spec.Ingress[0].From[0]
	require.NotNil(t, from.NamespaceSelector)
	assert.Equal(t, []metav1.LabelSelectorRequirement{{Key: translate.TenantLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"pserve"}}},
		from.NamespaceSelector.MatchExpressions, "ingress only from the tenant's namespaces")
	assert.Empty(t, from.NamespaceSelector.MatchLabels)
	assert.Nil(t, from.PodSelector)
	assert.Nil(t, from.IPBlock)
	var dns, own bool
	for _, rule := range np.Spec.Egress {
		for _, to := range rule.To {
			if to.NamespaceSelector != nil && len(to.NamespaceSelector.MatchExpressions) == 1 &&
				to.NamespaceSelector.MatchExpressions[0].Key == translate.TenantLabel && to.NamespaceSelector.MatchExpressions[0].Values[0] == "pserve" {
				own = true
			}
			if to.NamespaceSelector != nil && to.NamespaceSelector.MatchLabels[translate.MetadataNameLabel] == "kube-system" {
				dns = true
				assert.Equal(t, "kube-dns", to.PodSelector.MatchLabels["k8s-app"])
				require.Len(t, rule.Ports, 2)
				assert.Equal(t, int32(53), rule.Ports[0].Port.IntVal)
			}
		}
	}
	assert.True(t, own, "egress to the tenant's namespaces")
	assert.True(t, dns, "egress to the cluster DNS")

	lr, err := admin.CoreV1().LimitRanges("pserve-team").Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, lr.Spec.Limits, 1)
	assert.Equal(t, "200m", lr.Spec.Limits[0].Default.Cpu().String())

	// Network isolation off: the NetworkPolicies go, everywhere.
	setPolicy(t, "pserve", policy.Policy{NetworkIsolation: policy.NetworkIsolationNone})
	for _, ns := range tenantNamespaces(t, "pserve") {
		requirePolicyObjects(t, "pserve", ns, false, false)
	}
}

// TestNamespaceMadeDirectlyUpstreamAdmitsNoPodUntilItsPolicyObjectsExist:
// a tenant that creates a namespace with its own identity directly upstream
// (no proxy to make its policy objects) cannot create anything in it — not
// even the RoleBinding that gives its admins their rights there — until the
// reconcile has made them; it may not squat the policy's name with a
// ResourceQuota of its own (a scope that exempts everything), and one that
// predates that rule does not count and is replaced by the reconcile.
//
// Before the gate covered every kind, the RoleBinding and a ConfigMap were
// admitted at once (and only pods, claims and services waited); the
// squatters below are now made where a stand-in quota labeled as the
// policy's opens the gate, as the only way to place one.
func TestNamespaceMadeDirectlyUpstreamAdmitsNoPodUntilItsPolicyObjectsExist(t *testing.T) {
	createTenant(t, "praw")
	tenant := asTenant(t, "praw")
	admin := framework.AdminClient(t)
	labels := map[string]string{translate.TenantLabel: "praw"}
	for k, v := range translate.PodSecurityLabels(translate.DefaultPodSecurityLevel) {
		labels[k] = v
	}
	_, err := tenant.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "praw-raw", Labels: labels}}, metav1.CreateOptions{})
	require.NoError(t, err)

	gated := func(err error) {
		t.Helper()
		// The API server's own refusal of a missing parameter.
		require.Error(t, err, "refused before the policy objects exist")
		assert.Contains(t, err.Error(), admissionrules.PolicyObjectsPolicy, "reason %s", apierrors.ReasonForError(err))
		assert.Contains(t, err.Error(), "no params found")
	}
	// Its admins would get their rights there as through the proxy: a
	// RoleBinding to zoo-tenant-admin, which the tenant may create in its
	// namespaces — once the namespace's quota exists.
	admins := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "admins"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "zoo:praw:admin"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantAdminClusterRole},
	}
	_, err = tenant.RbacV1().RoleBindings("praw-raw").Create(t.Context(), admins, metav1.CreateOptions{})
	gated(err)
	// Whoever asks: the upstream admin too.
	_, err = admin.CoreV1().ConfigMaps("praw-raw").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	gated(err)
	_, err = admin.CoreV1().Pods("praw-raw").Create(t.Context(), pod("p1"), metav1.CreateOptions{})
	gated(err)
	_, err = admin.CoreV1().Services("praw-raw").Create(t.Context(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	gated(err)

	// A stand-in labeled as the policy's (only kubectl-zoo and the admin
	// may make one) opens the gate, so that the squatters can be placed.
	standin := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "standin", Labels: platformobj.PolicyObjectLabels(translate.MustTenant("praw"))}}
	_, err = admin.CoreV1().ResourceQuotas("praw-raw").Create(t.Context(), standin, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err = tenant.RbacV1().RoleBindings("praw-raw").Create(t.Context(), admins, metav1.CreateOptions{})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond, "the gate opens with the stand-in: %v", err)
	require.Eventually(t, func() bool { // RBAC's cache learns the binding
		_, err = tenant.CoreV1().ConfigMaps("praw-raw").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond, "the tenant may write in its namespace: %v", err)
	squat := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: platformobj.PolicyObjectName},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1000")},
			Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}}
	_, err = tenant.CoreV1().ResourceQuotas("praw-raw").Create(t.Context(), squat, metav1.CreateOptions{})
	require.True(t, apierrors.IsForbidden(err), "the policy's name is reserved: %v", err)
	assert.Contains(t, err.Error(), "the name is reserved")
	// One made before that rule (here by the admin) does not count either,
	// and is replaced, not merged into.
	_, err = admin.CoreV1().ResourceQuotas("praw-raw").Create(t.Context(), squat, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, admin.CoreV1().ResourceQuotas("praw-raw").Delete(t.Context(), "standin", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, err = tenant.CoreV1().Pods("praw-raw").Create(t.Context(), pod("p1"), metav1.CreateOptions{})
		return err != nil && strings.Contains(err.Error(), "no params found")
	}, 30*time.Second, 200*time.Millisecond, "the API server's informer sees the stand-in gone")
	gated(err) // an unlabeled quota of the policy's name does not count

	setPolicy(t, "praw", policy.Policy{Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}})
	requirePolicyObjects(t, "praw", "praw-raw", true, false)
	rq, err := admin.CoreV1().ResourceQuotas("praw-raw").Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, rq.Spec.Scopes, "the squatter was replaced, not merged into")
	require.Eventually(t, func() bool {
		_, err = tenant.CoreV1().Pods("praw-raw").Create(t.Context(), pod("p1"), metav1.CreateOptions{})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond, "a pod once the policy objects exist: %v", err)
}

// TestPolicyObjectsInTheWayAreMadeAnew: an object that stands where a
// policy object goes and was not made as kubectl-zoo makes it — unlabeled
// with a finalizer (a squatter from before the name was reserved), or
// labeled as the policy's but carrying a quota scope or a pod selector
// merged in before — is removed (its finalizer cleared) and the policy's
// made anew, never applied over: server-side apply would keep those
// fields.
func TestPolicyObjectsInTheWayAreMadeAnew(t *testing.T) {
	createTenant(t, "pnew")
	admin := framework.AdminClient(t)
	ctx := t.Context()
	tn := translate.MustTenant("pnew")
	keep := []string{"example.com/keep"}
	scoped := corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1000")},
		Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}
	replace := func(ns string, del func() error, create func() error) {
		t.Helper()
		require.NoError(t, del())
		require.Eventually(t, func() bool { return create() == nil }, 10*time.Second, 100*time.Millisecond, "in %s", ns)
	}
	// A squatter with a finalizer in pnew-default, where no quota labeled as
	// the policy's would admit it: a stand-in so labeled opens the gate
	// (zoo-tenant-policy-objects) while it is made, as an upgrade finds it.
	standin := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "standin", Labels: platformobj.PolicyObjectLabels(tn)}}
	_, err := admin.CoreV1().ResourceQuotas("pnew-default").Create(ctx, standin, metav1.CreateOptions{})
	require.NoError(t, err)
	gateOpen(t, "pnew-default")
	replace("pnew-default", func() error {
		return admin.CoreV1().ResourceQuotas("pnew-default").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{})
	}, func() error {
		_, err := admin.CoreV1().ResourceQuotas("pnew-default").Create(ctx, &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Name: platformobj.PolicyObjectName, Finalizers: keep}, Spec: scoped}, metav1.CreateOptions{})
		return err
	})
	require.NoError(t, admin.CoreV1().ResourceQuotas("pnew-default").Delete(ctx, "standin", metav1.DeleteOptions{}))
	// A labeled quota with a scope in pnew-kube-public.
	replace("pnew-kube-public", func() error {
		return admin.CoreV1().ResourceQuotas("pnew-kube-public").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{})
	}, func() error {
		_, err := admin.CoreV1().ResourceQuotas("pnew-kube-public").Create(ctx, &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Name: platformobj.PolicyObjectName, Labels: platformobj.PolicyObjectLabels(tn)}, Spec: scoped}, metav1.CreateOptions{})
		return err
	})
	// A labeled NetworkPolicy that selects no pod, with a finalizer, in
	// pnew-kube-system.
	np, err := admin.NetworkingV1().NetworkPolicies("pnew-kube-system").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
	require.NoError(t, err)
	bad := np.DeepCopy()
	bad.ObjectMeta = metav1.ObjectMeta{Name: np.Name, Labels: np.Labels, Annotations: np.Annotations, Finalizers: keep}
	bad.Spec.PodSelector = metav1.LabelSelector{MatchLabels: map[string]string{"none": "none"}}
	replace("pnew-kube-system", func() error {
		return admin.NetworkingV1().NetworkPolicies("pnew-kube-system").Delete(ctx, platformobj.PolicyObjectName, metav1.DeleteOptions{})
	}, func() error {
		_, err := admin.NetworkingV1().NetworkPolicies("pnew-kube-system").Create(ctx, bad, metav1.CreateOptions{})
		return err
	})

	setPolicy(t, "pnew", policy.Policy{NetworkIsolation: policy.NetworkIsolationTenant,
		Quota: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("8")}})
	for _, ns := range []string{"pnew-default", "pnew-kube-public"} {
		requirePolicyObjects(t, "pnew", ns, true, false)
		rq, err := admin.CoreV1().ResourceQuotas(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Empty(t, rq.Spec.Scopes, "%s: the quota was made anew, not merged into", ns)
		assert.Empty(t, rq.Finalizers, ns)
		assert.Nil(t, rq.DeletionTimestamp, ns)
	}
	requirePolicyObjects(t, "pnew", "pnew-kube-system", true, false)
	np, err = admin.NetworkingV1().NetworkPolicies("pnew-kube-system").Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, np.Spec.PodSelector.MatchLabels, "the NetworkPolicy selects every pod again")
	assert.Empty(t, np.Finalizers)
	assert.Nil(t, np.DeletionTimestamp)
}
