package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespaceWriteRounds is how many namespaces the bench tenant creates and
// deletes through serve on each side: each create runs the tenant's policy
// hooks (its policy objects, its propagation), each delete leaves a
// namespace for the namespace controller to finalize, so fewer than the
// reads.
const namespaceWriteRounds = 30

// nsWriteName is the one timed namespace write.
const nsWriteName = "create+delete Namespace"

// timeNamespaceWrites times the bench tenant's namespace create (answered
// once its policy objects and propagated copies exist) and delete
// (answered when the namespace starts terminating) through serve, on both
// sides, taking turns.
func timeNamespaceWrites(ctx context.Context, c config, sides []*side) ([]result, error) {
	lat, err := takeTurns(ctx, sideNames(sides), []string{nsWriteName}, namespaceWriteRounds, func(ctx context.Context, si, _, i int) error {
		nss := sides[si].proxied.CoreV1().Namespaces()
		name := fmt.Sprintf("scale-ns-%d", i)
		if _, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create namespace %s through serve: %w", name, err)
		}
		if err := nss.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return fmt.Errorf("delete namespace %s through serve: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return latencyRows("namespace write through serve", c.tenants, lat, sides[0].name, sides[1].name, []string{nsWriteName}), nil
}
