package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestAccessReviewsAnswerForTheView (issue 25, class 2): `kubectl auth
// can-i ... -A` answers what the view serves across all namespaces (the
// fan-out), not the upstream's cluster-wide right, which no tenant identity
// holds; `can-i --list` answers in the tenant's names. Through serve and
// through the server, as the admin and as a user bound to view in one
// namespace only.
func TestAccessReviewsAnswerForTheView(t *testing.T) {
	acme := serve(t, "acme")
	lb := servers(t)
	acme.k(t, "create", "namespace", "canidev")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "canidev", "--wait=false") })
	acme.k(t, "create", "rolebinding", "dev-view", "-n", "canidev", "--clusterrole=view", "--user=dev")
	devAuth := framework.ClusterCert(t, "zoo:acme:dev", "zoo:tenant:acme")
	views := map[string]*served{
		"serve admin":  acme,
		"server admin": viaServer(t, lb, "acme"),
		"serve dev":    serve(t, "acme", "--user", "dev"),
		"server dev":   {Tenant: "acme", Kubeconfig: framework.ServerKubeconfigFor(t, lb.URL(), devAuth), Addr: lb.URL()},
	}
	canI := func(t *testing.T, v *served, args ...string) string {
		res := v.run(t, "", append([]string{"auth", "can-i"}, args...)...)
		return strings.TrimSpace(res.Stdout)
	}
	for name, v := range views {
		t.Run(name, func(t *testing.T) {
			isAdmin := strings.HasSuffix(name, "admin")
			yes := map[bool]string{true: "yes", false: "no"}
			// RBAC's cache takes a moment to see the dev's new binding.
			require.Eventually(t, func() bool { return canI(t, v, "list", "pods", "-A") == "yes" }, 30*time.Second, 500*time.Millisecond,
				"list pods -A: at least one namespace allows it")
			assert.Equal(t, "yes", canI(t, v, "watch", "configmaps", "--all-namespaces"))
			assert.Equal(t, yes[isAdmin], canI(t, v, "create", "deployments", "-A"), "create -A: every namespace must allow it")
			assert.Equal(t, yes[isAdmin], canI(t, v, "list", "secrets", "-A"), "view reads no secrets")
			assert.Equal(t, yes[isAdmin], canI(t, v, "list", "namespaces"), "cluster-scoped: as before")
			assert.Equal(t, "yes", canI(t, v, "list", "pods", "-n", "canidev"), "namespaced: as before")
			// What can-i allows is served, and what it refuses is refused:
			// the fan-out leaves out, with a warning, the namespaces the dev
			// may not read (fanout_forbidden.go).
			res := v.run(t, "", "get", "pods", "-A")
			require.NoError(t, res.Err, "can-i list pods -A said yes: %s", res.Stderr)
			res = v.run(t, "", "get", "secrets", "-A")
			if isAdmin {
				require.NoError(t, res.Err, res.Stderr)
			} else {
				require.Error(t, res.Err, "can-i list secrets -A said no: %s%s", res.Stdout, res.Stderr)
				assert.Contains(t, res.Stderr, "forbidden")
			}
			res = v.run(t, "", "get", "pods", "-n", "canidev")
			require.NoError(t, res.Err, res.Stderr)
			for _, ns := range []string{"canidev", "default"} {
				list := v.run(t, "", "auth", "can-i", "--list", "-n", ns)
				require.NoError(t, list.Err, list.Stderr)
				t.Logf("can-i --list -n %s:\n%s", ns, list.Stdout)
				assert.NotContains(t, list.Stdout, "acme-", "no upstream names")
				assert.NotContains(t, list.Stdout, "beta", "nothing of another tenant")
				assert.NotContains(t, list.Stdout, "zoo-", "nothing of the platform's")
			}
		})
	}
	t.Run("hostile reviews", func(t *testing.T) {
		cs := clientFor(t, acme)
		for _, attrs := range []authorizationv1.ResourceAttributes{
			{Namespace: "beta-default", Verb: "list", Resource: "pods"}, // another tenant's, upstream form
			{Namespace: "acme-default", Verb: "list", Resource: "pods"}, // its own, upstream form
			{Verb: "list", Resource: "pods", FieldSelector: &authorizationv1.FieldSelectorAttributes{RawSelector: "metadata.namespace=beta-default"}},
		} {
			r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(),
				&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}, metav1.CreateOptions{})
			require.NoError(t, err)
			if attrs.Namespace != "" {
				assert.False(t, r.Status.Allowed, "%+v names a namespace the tenant does not have", attrs)
			}
			assert.Equal(t, attrs.Namespace, r.Spec.ResourceAttributes.Namespace, "the answer speaks the tenant's names")
			assert.NotContains(t, r.Status.Reason, "acme-")
		}
		sar := func(user string) bool {
			r, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"}}}, metav1.CreateOptions{})
			require.NoError(t, err)
			return r.Status.Allowed
		}
		rules, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(t.Context(), &authorizationv1.SelfSubjectRulesReview{
			Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "beta-default"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		for _, rule := range rules.Status.ResourceRules {
			assert.NotContains(t, rule.Resources, "*", "no rights in a namespace the tenant does not have: %+v", rule)
		}
		nonResource, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.True(t, nonResource.Status.Allowed, "non-resource reviews as upstream")
		assert.True(t, sar("dev"), "the tenant's dev may list pods in one namespace: in all, as the view serves it")
		assert.False(t, sar("zoo:beta:admin"), "a user named as another tenant's is the tenant's own user of that name")
	})
}
