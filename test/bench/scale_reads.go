package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ownPriorityClasses are the PriorityClasses the bench tenant makes through
// serve on both sides, so that a list of the shared kind has tenant-owned
// objects to show next to the cluster's.
var ownPriorityClasses = []string{"scale-low", "scale-lower"}

// otherTenant is a tenant of both sides (growTo makes s0 first) that owns a
// PriorityClass too, which the bench tenant's lists must leave out.
const otherTenant = "s0"

// proxiedReads are the reads through serve that the scale workload times at
// 2 and at N tenants: a shared kind (the cluster's PriorityClasses and the
// tenant's own) and the tenant-owned cluster-scoped kind every tool reads,
// Namespaces; and, directly upstream as the cluster admin (direct), the list
// of the tenant's namespaces serve asks the upstream for, to tell what the
// upstream costs from what serve adds.
var proxiedReads = []struct {
	name   string
	direct bool
	read   func(ctx context.Context, cs kubernetes.Interface) error
}{
	{"GET PriorityClass, the cluster's", false, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.SchedulingV1().PriorityClasses().Get(ctx, "system-node-critical", metav1.GetOptions{})
		return err
	}},
	{"GET PriorityClass, the tenant's", false, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.SchedulingV1().PriorityClasses().Get(ctx, ownPriorityClasses[0], metav1.GetOptions{})
		return err
	}},
	{"LIST PriorityClasses", false, func(ctx context.Context, cs kubernetes.Interface) error {
		l, err := cs.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
		if err == nil && len(l.Items) != 2+len(ownPriorityClasses) { // system-node-critical, system-cluster-critical
			err = fmt.Errorf("the list holds %d PriorityClasses, want %d", len(l.Items), 2+len(ownPriorityClasses))
		}
		return err
	}},
	{"GET Namespace", false, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err
	}},
	{"LIST Namespaces", false, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		return err
	}},
	{"LIST Namespaces " + translate.TenantLabel + "=" + benchTenant + ", directly upstream", true, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: translate.TenantLabel + "=" + benchTenant})
		return err
	}},
}

// prepareReads makes the PriorityClasses of the bench tenant (through
// serve) and of otherTenant (as its identity, directly upstream) on a side.
func (s *side) prepareReads(ctx context.Context) error {
	for _, name := range ownPriorityClasses {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: 0}
		if _, err := s.proxied.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s: PriorityClass %s through serve: %w", s.name, name, err)
		}
	}
	t := translate.MustTenant(otherTenant)
	cfg := rest.CopyConfig(s.env.cluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: t.UpstreamUser(translate.DefaultAdminUser), Groups: t.UpstreamGroups(nil, true)}
	other, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	never := corev1.PreemptNever // what serve sets on a tenant's PriorityClass
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: t.Prefix() + "scale", Labels: tenantapi.OwnerLabels(t)}, PreemptionPolicy: &never}
	if _, err := other.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("%s: PriorityClass of tenant %s: %w", s.name, otherTenant, err)
	}
	return nil
}

// timeReads times proxiedReads on both sides, c.scaleReads rounds, taking
// turns, and returns their p50 and p99 rows.
func timeReads(ctx context.Context, c config, sides []*side) ([]result, error) {
	names := make([]string, len(proxiedReads))
	var proxied, direct []string
	for k, r := range proxiedReads {
		names[k] = r.name
		if r.direct {
			direct = append(direct, r.name)
		} else {
			proxied = append(proxied, r.name)
		}
	}
	lat, err := takeTurns(ctx, sideNames(sides), names, c.scaleReads, func(ctx context.Context, si, k, _ int) error {
		if proxiedReads[k].direct {
			return proxiedReads[k].read(ctx, sides[si].env.admin)
		}
		return proxiedReads[k].read(ctx, sides[si].proxied)
	})
	if err != nil {
		return nil, err
	}
	return append(latencyRows("read through serve", c.tenants, lat, sides[0].name, sides[1].name, proxied),
		latencyRows("read directly upstream, cluster admin", c.tenants, lat, sides[0].name, sides[1].name, direct)...), nil
}
