package cmd

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/nssetup"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// keepNamespacesSetUp runs, until ctx ends, the reconcile that gives every
// namespace of the tenant what it needs whatever made it (pkg/nssetup),
// when the caller's credential may watch namespaces and RoleBindings.
// With the tenant user's own credential (direct), or one that may not,
// the namespaces the proxy creates are set up as they are created, and
// the others by the server or `tenant create`.
func (o *ServeOptions) keepNamespacesSetUp(ctx context.Context, namespaces *localproxy.NamespaceIndex) error {
	if o.direct {
		return nil
	}
	zoo, err := tenantctl.NewClient(o.upstream)
	if err != nil {
		return err
	}
	ok, err := nssetup.MayWatch(ctx, zoo.Kube)
	if err != nil || !ok {
		klog.V(1).InfoS("not keeping the tenant's namespaces set up: this identity may not watch namespaces and RoleBindings", "tenant", o.Tenant, "err", err)
		return nil
	}
	if namespaces != nil {
		zoo.Namespaces = namespaces.TenantNamespaces
	}
	r, err := nssetup.New(nssetup.Config{Kube: zoo.Kube, Client: policyctl.New(zoo.Client), Upstream: o.upstream, Tenant: o.Tenant})
	if err != nil {
		return fmt.Errorf("namespace set-up: %w", err)
	}
	go r.Run(ctx)
	return nil
}
