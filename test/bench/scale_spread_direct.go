package main

import (
	"context"
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// spreadLegsAtOnce is how many namespaces the direct lists of the spread
// step read at once: the proxy's own window (localproxy's legWindow), so
// that the direct figure is what the proxy's fan-out asks of the upstream
// without the proxy.
const spreadLegsAtOnce = 16

// upstreamLister lists a tenant's ConfigMaps directly upstream as the
// tenant's identity, the way the proxy's all-namespaces fan-out does: one
// LIST per namespace of the tenant, because that identity may not list
// across namespaces (RBAC grants it each namespace with a RoleBinding).
type upstreamLister struct {
	cs  kubernetes.Interface
	nss []string // the upstream names of the namespaces it lists
}

// newUpstreamLister makes the lister of tenant name over the tenant's
// namespaces local (their names in the tenant's view).
func newUpstreamLister(e *env, name string, local []string) (*upstreamLister, error) {
	t, cs, err := tenantIdentityClient(e, name)
	if err != nil {
		return nil, err
	}
	l := &upstreamLister{cs: cs}
	for _, ns := range local {
		l.nss = append(l.nss, t.Prefix()+ns)
	}
	return l, nil
}

// tenantIdentityClient is a client of the upstream of e acting as the
// default admin of tenant name (its upstream identity, by impersonation),
// without a client-side rate limit: what is timed is the upstream.
func tenantIdentityClient(e *env, name string) (translate.Tenant, *kubernetes.Clientset, error) {
	t, err := translate.NewTenant(name)
	if err != nil {
		return t, nil, err
	}
	cfg := rest.CopyConfig(e.cluster.Config)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.Impersonate = rest.ImpersonationConfig{UserName: t.UpstreamUser(translate.DefaultAdminUser), Groups: t.UpstreamGroups(nil, true)}
	cs, err := kubernetes.NewForConfig(cfg)
	return t, cs, err
}

// list lists the ConfigMaps of every namespace, spreadLegsAtOnce at once,
// and returns how many there are.
func (l *upstreamLister) list(ctx context.Context) (int, error) {
	var n atomic.Int64
	err := inParallel(ctx, len(l.nss), spreadLegsAtOnce, func(i int) error {
		got, err := l.cs.CoreV1().ConfigMaps(l.nss[i]).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("namespace %s: %w", l.nss[i], err)
		}
		n.Add(int64(len(got.Items)))
		return nil
	})
	return int(n.Load()), err
}
