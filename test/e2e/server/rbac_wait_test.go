package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// waitAuthorized waits until the API server's RBAC authorizer, which follows
// RoleBindings through an informer, allows the upstream user verb on
// resource in the upstream namespace ns: a binding just written is not
// effective at once, and on a loaded machine the lag reaches seconds.
func waitAuthorized(t *testing.T, user, verb, resource, ns string) {
	t.Helper()
	admin := framework.AdminClient(t)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		review, err := admin.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: verb, Resource: resource, Namespace: ns,
			}},
		}, metav1.CreateOptions{})
		require.NoError(c, err)
		assert.True(c, review.Status.Allowed, "%s may not %s %s in %s yet", user, verb, resource, ns)
	}, 30*time.Second, 100*time.Millisecond)
}
