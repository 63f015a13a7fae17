package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestAggregateToStandardRoles (issue 16): a tenant's ClusterRole labeled
// rbac.authorization.k8s.io/aggregate-to-admin|edit|view is aggregated into
// the tenant's own admin, edit and view (as a CRD's roles are in a real
// cluster), which grant it to whom the tenant binds them; never into the
// cluster's admin, edit and view, nor another tenant's. The tenant reads
// its roles, labels and selectors as a cluster of its own shows them. The
// tenant's identity directly upstream and a tenant pod's ServiceAccount
// token cannot reach the cluster's roles either.
func TestAggregateToStandardRoles(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	role := func(name, to, verbs string) string {
		return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ` + name + `
  labels: {rbac.authorization.k8s.io/aggregate-to-` + to + `: "true"}
rules:
- {apiGroups: [aggto.example.com], resources: [widgets], verbs: [` + verbs + `]}
`
	}
	acme.apply(t, role("widgets-admin", "admin", "'*'"))
	acme.apply(t, role("widgets-view", "view", "get, list, watch"))
	defer acme.run(t, "", "delete", "clusterrole", "widgets-admin", "widgets-view", "--ignore-not-found")

	rulesOf := func(s *served, name string) string {
		return s.k(t, "get", "clusterrole", name, "-o", "jsonpath={.rules}")
	}
	const all = `{"apiGroups":["aggto.example.com"],"resources":["widgets"],"verbs":["*"]}`
	const read = `{"apiGroups":["aggto.example.com"],"resources":["widgets"],"verbs":["get","list","watch"]}`
	var got map[string]string
	require.Eventually(t, func() bool {
		got = map[string]string{"admin": rulesOf(acme, "admin"), "edit": rulesOf(acme, "edit"), "view": rulesOf(acme, "view")}
		return strings.Contains(got["admin"], all) && strings.Contains(got["admin"], read) &&
			strings.Contains(got["edit"], read) && strings.Contains(got["view"], read)
	}, 60*time.Second, 500*time.Millisecond, "acme's admin, edit and view aggregate its roles (view through edit into admin): %v", got)
	assert.NotContains(t, got["edit"], all, "admin's part stays in admin")

	t.Run("the tenant reads roles as a cluster of its own shows them", func(t *testing.T) {
		assert.Equal(t, `{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}`, acme.k(t, "get", "clusterrole", "widgets-admin", "-o", "jsonpath={.metadata.labels}"))
		assert.Equal(t, `{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}`,
			acme.k(t, "get", "clusterrole", "admin", "-o", "jsonpath={.aggregationRule.clusterRoleSelectors[0].matchLabels}"))
		assert.Equal(t, "true", acme.k(t, "get", "clusterrole", "edit", "-o", `jsonpath={.metadata.labels.rbac\.authorization\.k8s\.io/aggregate-to-admin}`))
		assert.Equal(t, "true", acme.k(t, "get", "clusterrole", "view", "-o", `jsonpath={.metadata.labels.rbac\.authorization\.k8s\.io/aggregate-to-edit}`))
		names := acme.k(t, "get", "clusterroles", "-l", "rbac.authorization.k8s.io/aggregate-to-admin=true", "-o", "name")
		assert.ElementsMatch(t, []string{"clusterrole.rbac.authorization.k8s.io/edit", "clusterrole.rbac.authorization.k8s.io/system:aggregate-to-admin",
			"clusterrole.rbac.authorization.k8s.io/widgets-admin"}, strings.Fields(names))
		for _, name := range []string{"admin", "edit", "widgets-admin"} {
			y := acme.k(t, "get", "clusterrole", name, "-o", "yaml", "--show-managed-fields")
			assert.NotContains(t, y, "rbac.zoo.kubectl-zoo.io", "%s: the upstream keys do not show", name)
			assert.NotContains(t, y, "acme-", name)
		}
	})

	t.Run("binding admin grants the aggregated rights", func(t *testing.T) {
		acme.k(t, "create", "rolebinding", "aggto-dev", "-n", "default", "--clusterrole=admin", "--user=aggto-dev")
		defer acme.k(t, "delete", "rolebinding", "aggto-dev", "-n", "default")
		group := "aggto.example.com"
		if strings.Contains(admin(t, "get", "clusterrole", "acme-admin", "-o", "jsonpath={.rules}"), "acme-aggto.example.com") {
			group = "acme-aggto.example.com"
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
		require.NoError(t, err)
		up, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		allowed := func(verb, group, resource string) bool {
			sar, err := up.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: "zoo:acme:aggto-dev", Groups: []string{"zoo:tenant:acme"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "acme-default", Verb: verb, Group: group, Resource: resource},
			}}, metav1.CreateOptions{})
			require.NoError(t, err)
			return sar.Status.Allowed
		}
		assert.Eventually(t, func() bool { return allowed("delete", group, "widgets") }, 30*time.Second, 500*time.Millisecond,
			"a user bound to admin in a namespace may delete widgets there")
		assert.True(t, allowed("delete", "", "secrets"), "and holds admin's own rights")
		assert.False(t, allowed("delete", group, "gadgets"), "but no more")
	})

	t.Run("the cluster's roles and beta's gain nothing", func(t *testing.T) {
		time.Sleep(2 * time.Second) // the aggregation controller has seen every role by now
		for _, name := range []string{"admin", "edit", "view"} {
			assert.NotContains(t, admin(t, "get", "clusterrole", name, "-o", "jsonpath={.rules}"), "aggto", "the cluster's %s", name)
			assert.NotContains(t, rulesOf(beta, name), "aggto", "beta's %s", name)
		}
	})

	asAcme := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	t.Run("the tenant's identity directly upstream", func(t *testing.T) {
		upstreamRole := func(name, labels string) string {
			return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ` + name + `
  labels: {zoo.kubectl-zoo.io/tenant: acme, ` + labels + `}
rules: [{apiGroups: [""], resources: [secrets], verbs: ['*']}]
`
		}
		for _, labels := range []string{
			`rbac.authorization.k8s.io/aggregate-to-admin: "true"`,
			`rbac.authorization.k8s.io/aggregate-to-edit: "true"`,
			`rbac.authorization.k8s.io/aggregate-to-view: "true"`,
		} {
			res := framework.Run(t.Context(), []byte(upstreamRole("acme-grab", labels)), framework.KubectlPath(),
				append([]string{"--kubeconfig", framework.Cluster().Kubeconfig, "create", "-f", "-"}, asAcme...)...)
			require.Error(t, res.Err, labels)
			assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant'", labels)
		}
		// Relabeling the tenant's own aggregated role is refused the same way.
		res := framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig,
			"label", "clusterrole", "acme-widgets-admin", "rbac.authorization.k8s.io/aggregate-to-admin=true"}, asAcme...)...)
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-tenant'")
	})

	t.Run("a tenant pod's ServiceAccount token directly upstream", func(t *testing.T) {
		acme.k(t, "create", "namespace", "aggto")
		defer acme.k(t, "delete", "namespace", "aggto", "--wait=false")
		// The strongest a tenant can give its pod: cluster-admin of its view.
		acme.k(t, "create", "clusterrolebinding", "aggto-sa", "--clusterrole=cluster-admin", "--serviceaccount=aggto:default")
		defer acme.k(t, "delete", "clusterrolebinding", "aggto-sa")
		cs := clientFor(t, acme)
		var tok *authenticationv1.TokenRequest
		require.Eventually(t, func() bool { // the namespace's default ServiceAccount comes from a controller
			var err error
			tok, err = cs.CoreV1().ServiceAccounts("aggto").CreateToken(t.Context(), "default", &authenticationv1.TokenRequest{
				Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))},
			}, metav1.CreateOptions{})
			return err == nil
		}, 30*time.Second, 200*time.Millisecond)
		cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
		require.NoError(t, err)
		cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = nil, nil, "", ""
		cfg.BearerToken = tok.Status.Token
		sa, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		for _, labels := range []map[string]string{
			{"rbac.authorization.k8s.io/aggregate-to-admin": "true"},
			{"rbac.authorization.k8s.io/aggregate-to-admin": "true", "zoo.kubectl-zoo.io/tenant": "acme"},
		} {
			_, err := sa.RbacV1().ClusterRoles().Create(t.Context(), &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: "acme-sa-grab", Labels: labels},
				Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}}},
			}, metav1.CreateOptions{})
			require.Error(t, err, "%v", labels)
			assert.Contains(t, err.Error(), "forbidden")
		}
		_, err = sa.RbacV1().ClusterRoles().Patch(t.Context(), "acme-widgets-admin", "application/merge-patch+json",
			[]byte(`{"metadata":{"labels":{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}}}`), metav1.PatchOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
	})
	assert.Empty(t, admin(t, "get", "clusterroles", "acme-grab", "acme-sa-grab", "--ignore-not-found", "-o", "name"), "no refused role exists")
}
