package localproxy

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// WhoAmI asks the upstream who the credential of cfg is (a SelfSubjectReview,
// which every authenticated identity may create), so that `serve` can tell
// a tenant user's own credential, which it uses without impersonation
// (Config.Direct), from one that impersonates.
func WhoAmI(ctx context.Context, cfg *rest.Config) (user.Info, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("asking the upstream who your credential is: %w", err)
	}
	ui := review.Status.UserInfo
	return &user.DefaultInfo{Name: ui.Username, UID: ui.UID, Groups: ui.Groups}, nil
}

// MayImpersonate asks the upstream whether the credential of cfg may
// impersonate the user name (a SelfSubjectAccessReview).
func MayImpersonate(ctx context.Context, cfg *rest.Config, name string) (bool, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return false, fmt.Errorf("upstream client: %w", err)
	}
	review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "impersonate", Resource: "users", Name: name,
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("asking the upstream whether you may impersonate %s: %w", name, err)
	}
	return review.Status.Allowed, nil
}
