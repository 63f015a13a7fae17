package proxy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestReviewsThroughProxy (issue 16, the sig-auth conformance spec "should
// create a serviceAccountToken and ensure a successful TokenReview"): a
// tenant's admin creates TokenReviews and SubjectAccessReviews as a
// cluster's admin does. The proxy creates them with its own identity once
// the translator has confined them: a token of another tenant reads as
// unauthenticated, a SubjectAccessReview answers about the tenant's own
// users and namespaces. A user who is not an admin is refused, and so are
// the tenant's identity and a tenant pod's ServiceAccount token directly
// upstream (the answers there would be about every tenant).
func TestReviewsThroughProxy(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	cs, betaCS := clientFor(t, acme), clientFor(t, beta)
	acme.k(t, "create", "namespace", "reviews")
	defer acme.k(t, "delete", "namespace", "reviews", "--wait=false")
	beta.k(t, "create", "namespace", "reviews")
	defer beta.k(t, "delete", "namespace", "reviews", "--wait=false")
	token := func(cs kubernetes.Interface) string {
		_, err := cs.CoreV1().ServiceAccounts("reviews").Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		tok, err := cs.CoreV1().ServiceAccounts("reviews").CreateToken(t.Context(), "builder", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		require.NoError(t, err)
		return tok.Status.Token
	}
	acmeToken, betaToken := token(cs), token(betaCS)

	t.Run("a TokenReview of the tenant's token", func(t *testing.T) {
		tr, err := cs.AuthenticationV1().TokenReviews().Create(t.Context(), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: acmeToken}}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.True(t, tr.Status.Authenticated)
		assert.Empty(t, tr.Status.Error)
		assert.Equal(t, "system:serviceaccount:reviews:builder", tr.Status.User.Username)
		assert.Contains(t, tr.Status.User.Groups, "system:serviceaccounts:reviews")
	})
	t.Run("a TokenReview of another tenant's token", func(t *testing.T) {
		tr, err := cs.AuthenticationV1().TokenReviews().Create(t.Context(), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: betaToken}}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.False(t, tr.Status.Authenticated)
		assert.Empty(t, tr.Status.User.Username)
	})
	t.Run("a SubjectAccessReview answers about the tenant's own", func(t *testing.T) {
		sar := func(cs kubernetes.Interface) func() bool {
			return func() bool {
				r, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: "system:serviceaccount:reviews:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:reviews", "system:authenticated"},
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "reviews", Verb: "list", Resource: "configmaps"},
				}}, metav1.CreateOptions{})
				require.NoError(t, err)
				return r.Status.Allowed
			}
		}
		assert.False(t, sar(cs)(), "the ServiceAccount may not list configmaps yet")
		acme.k(t, "create", "rolebinding", "builder-view", "-n", "reviews", "--clusterrole=view", "--serviceaccount=reviews:builder")
		assert.Eventually(t, sar(cs), 30*time.Second, 500*time.Millisecond, "it may once bound to view")
		// beta's ServiceAccount of the same name, in beta's namespace of the
		// same name, has no binding: acme's question was about acme's.
		assert.False(t, sar(betaCS)(), "beta's review answers about beta's")
	})

	t.Run("a user who is not the tenant's admin", func(t *testing.T) {
		dev := serve(t, "acme", "--user", "dev")
		_, err := clientFor(t, dev).AuthenticationV1().TokenReviews().Create(t.Context(), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: acmeToken}}, metav1.CreateOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
	})

	t.Run("the tenant's identity directly upstream", func(t *testing.T) {
		for _, args := range [][]string{
			{"create", "--raw", "/apis/authentication.k8s.io/v1/tokenreviews", "-f", "-"},
			{"create", "--raw", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "-f", "-"},
		} {
			body := `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"` + betaToken + `"}}`
			if args[2] == "/apis/authorization.k8s.io/v1/subjectaccessreviews" {
				body = `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"zoo:beta:admin","resourceAttributes":{"namespace":"beta-reviews","verb":"get","resource":"secrets"}}}`
			}
			res := framework.Run(t.Context(), []byte(body), framework.KubectlPath(), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig,
				"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}, args...)...)
			require.Error(t, res.Err, args[2])
			assert.Contains(t, res.Stderr, "forbidden", args[2])
		}
	})

	t.Run("a tenant pod's ServiceAccount token directly upstream", func(t *testing.T) {
		// The strongest a tenant can give its pod: cluster-admin of its view.
		acme.k(t, "create", "clusterrolebinding", "reviews-builder", "--clusterrole=cluster-admin", "--serviceaccount=reviews:builder")
		defer acme.k(t, "delete", "clusterrolebinding", "reviews-builder")
		cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
		require.NoError(t, err)
		cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = nil, nil, "", ""
		cfg.BearerToken = acmeToken
		sa, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		_, err = sa.AuthenticationV1().TokenReviews().Create(t.Context(), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: betaToken}}, metav1.CreateOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
		_, err = sa.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "zoo:beta:admin", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "beta-reviews", Verb: "get", Resource: "secrets"},
		}}, metav1.CreateOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
	})
}
