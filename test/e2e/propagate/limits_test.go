package propagate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// configMapQuota is the tenant-wide quota of the tests below: ConfigMaps,
// which no gate of pods, claims and services held (each standard
// namespace holds one already, kube-root-ca.crt).
const configMapQuota = 12

// limitedTenant creates tenant with a tenant-wide quota of configMapQuota
// ConfigMaps and waits until quota admission knows every namespace's use.
func limitedTenant(t *testing.T, tenant string) {
	t.Helper()
	createTenant(t, tenant)
	setPolicy(t, tenant, policy.Policy{Quota: corev1.ResourceList{"count/configmaps": resource.MustParse(fmt.Sprint(configMapQuota))}})
	quotasKnown(t, tenant)
}

// quotasKnown waits until every namespace's policy quota has a status.
func quotasKnown(t *testing.T, tenant string) {
	t.Helper()
	admin := framework.AdminClient(t)
	require.Eventually(t, func() bool {
		for _, ns := range tenantNamespaces(t, tenant) {
			rq, err := admin.CoreV1().ResourceQuotas(ns).Get(t.Context(), platformobj.PolicyObjectName, metav1.GetOptions{})
			if err != nil || rq.Status.Used == nil {
				return false
			}
		}
		return true
	}, 30*time.Second, 200*time.Millisecond, "the quotas' status")
}

// configMapsOf counts the ConfigMaps in every namespace of tenant: what its
// quota counts, whoever made them.
func configMapsOf(t *testing.T, tenant string) int {
	t.Helper()
	n := 0
	for _, ns := range tenantNamespaces(t, tenant) {
		l, err := framework.AdminClient(t).CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		n += len(l.Items)
	}
	return n
}

// fill calls create until it fails, at most 3 × the quota times, and
// returns the refusal (nil if every create was admitted).
func fill(create func(i int) error) error {
	for i := range 3 * configMapQuota {
		if err := create(i); err != nil {
			return err
		}
	}
	return nil
}

// fillUntilQuota is fill, again while RBAC's cache has not learnt the
// RoleBinding that gives the writer its rights (a refusal that is RBAC's).
func fillUntilQuota(t *testing.T, create func(i int) error) error {
	t.Helper()
	var refusal error
	require.Eventually(t, func() bool {
		refusal = fill(create)
		return refusal == nil || !strings.Contains(refusal.Error(), "cannot create")
	}, 30*time.Second, 200*time.Millisecond, "the writer's rights")
	return refusal
}

// byQuota asserts that err is quota admission's refusal (the namespace's
// share of the tenant-wide quota is used up).
func byQuota(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exceeded quota: "+platformobj.PolicyObjectName, "the namespace's share refuses")
}

// gatedBy asserts that err is zoo-tenant-policy-objects' refusal with
// binding: the namespace has no policy quota yet.
func gatedBy(t *testing.T, err error, binding string) {
	t.Helper()
	require.Error(t, err, "refused before the namespace's quota exists")
	assert.Contains(t, err.Error(), "ValidatingAdmissionPolicy '"+admissionrules.PolicyObjectsPolicy+"' with binding '"+binding+"'")
	assert.Contains(t, err.Error(), "no params found")
}

// gateOpen waits until namespace ns admits creates (the API server's
// informer sees a quota labeled as the policy's there): a dry-run create
// of the admin passes zoo-tenant-policy-objects.
func gateOpen(t *testing.T, ns string) {
	t.Helper()
	var err error
	require.Eventually(t, func() bool {
		_, err = framework.AdminClient(t).CoreV1().ConfigMaps(ns).Create(t.Context(), configMap("probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "namespace %s admits creates: %v", ns, err)
}

// rawNamespaceObject is namespace name of tenant as the tenant identity may
// create it directly upstream (its label, Pod Security at the default).
func rawNamespaceObject(tenant, name string) *corev1.Namespace {
	labels := map[string]string{translate.TenantLabel: tenant}
	for k, v := range translate.PodSecurityLabels(translate.DefaultPodSecurityLevel) {
		labels[k] = v
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// rawNamespace creates namespace name of tenant with the tenant identity,
// directly upstream: no proxy makes its policy objects.
func rawNamespace(t *testing.T, tenant, name string) {
	t.Helper()
	_, err := asTenant(t, tenant).CoreV1().Namespaces().Create(t.Context(), rawNamespaceObject(tenant, name), metav1.CreateOptions{})
	require.NoError(t, err)
}

// adminsBinding is the RoleBinding that gives tenant's admins their rights
// in ns, as the proxy makes it.
func adminsBinding(tenant string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "admins"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "zoo:" + tenant + ":admin"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantAdminClusterRole},
	}
}

// configMap is an empty ConfigMap.
func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// othersConfigMaps counts beta's ConfigMaps and quotas: an attack on one
// tenant's limits must leave another's alone.
func othersConfigMaps(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("configmaps=%d quotas=%d", configMapsOf(t, "beta"), len(tenantNamespaces(t, "beta")))
}

// TestTenantWideQuotaHoldsInANamespaceMadeDirectlyUpstream: a tenant-wide
// quota of ConfigMaps (neither pods, claims nor services) holds at the
// moment of every write on every path without the server: in a namespace the
// tenant identity creates directly upstream nothing at all may be created —
// not the RoleBinding that would give it rights there, not a ConfigMap, a
// Secret, a Deployment or a ResourceQuota of its own, by any writer, by
// create or server-side apply — until the namespace's share exists (the
// reconcile makes it here, as `policy set` or the server's loop does); then
// quota admission holds the sum. A tenant pod's ServiceAccount token, and
// the tenant through `kubectl zoo serve`, are held the same way. On the code
// before the gate covered every kind, the tenant's RoleBinding and
// ConfigMaps were admitted in the new namespace with no quota at all.
func TestTenantWideQuotaHoldsInANamespaceMadeDirectlyUpstream(t *testing.T) {
	limitedTenant(t, "plim")
	others := othersConfigMaps(t)
	ctx := t.Context()
	admin := framework.AdminClient(t)
	tenant := asTenant(t, "plim")

	t.Run("directly upstream", func(t *testing.T) {
		rawNamespace(t, "plim", "plim-raw")
		_, err := tenant.RbacV1().RoleBindings("plim-raw").Create(ctx, adminsBinding("plim"), metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		// Every writer is gated, also one that holds every right there.
		_, err = admin.CoreV1().ConfigMaps("plim-raw").Create(ctx, configMap("c0"), metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		_, err = admin.CoreV1().ConfigMaps("plim-raw").Patch(ctx, "c1", types.ApplyPatchType,
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"}}`), metav1.PatchOptions{FieldManager: "attacker"})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		_, err = admin.CoreV1().Secrets("plim-raw").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "s-"}}, metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		_, err = admin.AppsV1().Deployments("plim-raw").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}, Spec: pod("p").Spec}}}, metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		// A ResourceQuota that is not the policy's is gated by the second
		// binding (the policy's own may be made there).
		_, err = admin.CoreV1().ResourceQuotas("plim-raw").Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "mine"}}, metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsOwnBinding)
		// kube-root-ca.crt, which every namespace holds, is the cluster's
		// to make.
		require.Eventually(t, func() bool {
			_, err := admin.CoreV1().ConfigMaps("plim-raw").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err == nil
		}, 30*time.Second, 200*time.Millisecond, "the cluster's own ConfigMap")

		require.NoError(t, policyctl.New(zooClient(t).Client).ReconcileNamespacePolicyObjects(ctx, "plim", "plim-raw"))
		requirePolicyObjects(t, "plim", "plim-raw", true, false)
		quotasKnown(t, "plim")
		_, err = tenant.RbacV1().RoleBindings("plim-raw").Create(ctx, adminsBinding("plim"), metav1.CreateOptions{})
		require.NoError(t, err, "the namespace admits creates once its share exists")
		byQuota(t, fillUntilQuota(t, func(i int) error {
			_, err := tenant.CoreV1().ConfigMaps("plim-raw").Create(ctx, configMap(fmt.Sprintf("raw%d", i)), metav1.CreateOptions{})
			return err
		}))
		byQuota(t, fill(func(i int) error {
			_, err := tenant.CoreV1().ConfigMaps("plim-default").Create(ctx, configMap(fmt.Sprintf("def%d", i)), metav1.CreateOptions{})
			return err
		}))
		assert.LessOrEqual(t, configMapsOf(t, "plim"), configMapQuota, "the tenant-wide quota, summed over every namespace")
	})

	t.Run("with a tenant pod's ServiceAccount token", func(t *testing.T) {
		bot := tenantBot(t, "plim-kube-public")
		byQuota(t, fill(func(i int) error {
			_, err := bot.CoreV1().ConfigMaps("plim-kube-public").Create(ctx, configMap(fmt.Sprintf("bot%d", i)), metav1.CreateOptions{})
			return err
		}))
		// A fresh namespace gives it no room: the tenant cannot even bind
		// it there before the namespace's share exists.
		rawNamespace(t, "plim", "plim-raw2")
		rb := adminsBinding("plim")
		rb.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "bot", Namespace: "plim-kube-public"}}
		_, err := tenant.RbacV1().RoleBindings("plim-raw2").Create(ctx, rb, metav1.CreateOptions{})
		gatedBy(t, err, admissionrules.PolicyObjectsPolicy)
		_, err = bot.CoreV1().ConfigMaps("plim-raw2").Create(ctx, configMap("bot"), metav1.CreateOptions{})
		require.Error(t, err, "no rights there")
		assert.LessOrEqual(t, configMapsOf(t, "plim"), configMapQuota)
	})

	t.Run("through serve", func(t *testing.T) {
		s := serve(t, "plim")
		res := kubectl(ctx, s.kubeconfig, "", "create", "namespace", "srv")
		require.NoError(t, res.Err, res.Stderr)
		quotasKnown(t, "plim")
		for i := range 3 * configMapQuota {
			res = kubectl(ctx, s.kubeconfig, "", "create", "configmap", fmt.Sprintf("srv%d", i), "-n", "srv")
			if res.Err != nil {
				break
			}
		}
		require.Error(t, res.Err, "the quota refuses through the proxy")
		assert.Contains(t, res.Stderr, "exceeded quota: "+platformobj.PolicyObjectName)
		assert.NotContains(t, res.Stderr, "plim-", "in the tenant's names")
		assert.LessOrEqual(t, configMapsOf(t, "plim"), configMapQuota)
	})
	assert.Equal(t, others, othersConfigMaps(t), "beta is untouched")
}

// TestTenantWideQuotaHoldsWhileTheServerRaces: with the server running, a
// namespace the tenant creates directly upstream races the server's
// reconcile loop: the tenant's writes there (through the server as well as
// directly upstream) are refused until its share exists, and then held by
// it; the sum over the tenant's namespaces never exceeds the quota.
func TestTenantWideQuotaHoldsWhileTheServerRaces(t *testing.T) {
	limitedTenant(t, "plrace")
	others := othersConfigMaps(t)
	r1 := framework.StartReplica(t)
	lb := framework.NewBalancer(t, false, r1.Addr)
	kc := framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:plrace:admin", "zoo:tenant:plrace"))
	ctx := t.Context()
	tenant := asTenant(t, "plrace")

	rawNamespace(t, "plrace", "plrace-raw")
	// Race the loop: bind as soon as the namespace admits it.
	var gated error
	require.Eventually(t, func() bool {
		_, err := tenant.RbacV1().RoleBindings("plrace-raw").Create(ctx, adminsBinding("plrace"), metav1.CreateOptions{})
		if err != nil && gated == nil {
			gated = err
		}
		return err == nil
	}, 60*time.Second, 20*time.Millisecond, "the loop makes the namespace's share")
	if gated != nil { // the loop may win the race; when it did not, the gate refused
		gatedBy(t, gated, admissionrules.PolicyObjectsPolicy)
	}
	requirePolicyObjects(t, "plrace", "plrace-raw", true, false)

	attack := func(t *testing.T, create func(i int) error) {
		t.Helper()
		byQuota(t, fillUntilQuota(t, create))
		assert.LessOrEqual(t, configMapsOf(t, "plrace"), configMapQuota)
	}
	t.Run("directly upstream", func(t *testing.T) {
		attack(t, func(i int) error {
			_, err := tenant.CoreV1().ConfigMaps("plrace-raw").Create(ctx, configMap(fmt.Sprintf("d%d", i)), metav1.CreateOptions{})
			return err
		})
	})
	t.Run("through the server", func(t *testing.T) {
		attack(t, func(i int) error {
			res := kubectl(ctx, kc, "", "create", "configmap", fmt.Sprintf("s%d", i), "-n", "raw")
			if res.Err != nil {
				return fmt.Errorf("%w: %s", res.Err, res.Stderr)
			}
			return nil
		})
	})
	assert.Equal(t, others, othersConfigMaps(t), "beta is untouched")
}
