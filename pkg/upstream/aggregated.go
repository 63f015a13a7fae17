package upstream

import (
	"context"
	"fmt"
	"slices"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// WaitAggregated waits until the aggregated ClusterRole name holds every
// rule of base (the rules of the ClusterRole baseName).
func (c *Client) WaitAggregated(ctx context.Context, name, baseName string, base []rbacv1.PolicyRule) error {
	var have int
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		role, err := c.Kube.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout, which reports it
		}
		have = 0
		for _, want := range base {
			if slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, want) }) {
				have++
			}
		}
		return have == len(base), nil
	})
	if err != nil {
		return fmt.Errorf("the aggregated ClusterRole %s holds %d of the %d rules of %s (is the clusterrole-aggregation controller of kube-controller-manager running?): %w",
			name, have, len(base), baseName, err)
	}
	return nil
}
