package nssetup

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// watched are the resources a Reconciler lists and watches cluster-wide.
var watched = []authorizationv1.ResourceAttributes{
	{Resource: translate.ResourceOf("", "Namespace")},
	{Group: rbacv1.GroupName, Resource: translate.ResourceOf(rbacv1.GroupName, "RoleBinding")},
}

// MayWatch reports whether kube's identity may list and watch what a
// Reconciler watches (namespaces and RoleBindings, cluster-wide). An
// upstream user serving its own tenant identity may not: `serve` then
// sets up only the namespaces it creates itself.
func MayWatch(ctx context.Context, kube kubernetes.Interface) (bool, error) {
	for _, attrs := range watched {
		for _, verb := range []string{"list", "watch"} {
			a := attrs
			a.Verb = verb
			review, err := kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
				&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &a}}, metav1.CreateOptions{})
			if err != nil {
				return false, fmt.Errorf("asking whether %s may be watched: %w", a.Resource, err)
			}
			if !review.Status.Allowed {
				return false, nil
			}
		}
	}
	return true, nil
}
