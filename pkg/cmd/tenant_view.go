package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// tenantView is a tenant's own view served in-process on loopback, as
// `kubectl zoo serve` serves it, acting as the tenant's first admin: what
// export reads and import writes, in the tenant's names, judged by the
// tenant's policy and confinement as any of its requests.
type tenantView struct {
	// Config reaches the view.
	Config *rest.Config
	// Upstream is the caller's own config of the shared cluster.
	Upstream *rest.Config
	srv      *localproxy.Server
}

// openTenantView serves the view of tenant with the caller's credentials,
// which must be allowed to impersonate the tenant's identities.
func openTenantView(ctx context.Context, getter genericclioptions.RESTClientGetter, tenant string) (*tenantView, error) {
	upstream, err := getter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return openTenantViewOn(ctx, upstream, tenant)
}

// openTenantViewOn serves the view of tenant with the credentials of
// upstream, which must be allowed to impersonate the tenant's identities.
func openTenantViewOn(ctx context.Context, upstream *rest.Config, tenant string) (*tenantView, error) {
	client, err := tenantctl.NewClient(upstream)
	if err != nil {
		return nil, err
	}
	info, _, err := client.GetTenant(ctx, tenant)
	if err != nil {
		return nil, err
	}
	user := translate.DefaultAdminUser
	if len(info.Tenant.Spec.Admins) > 0 {
		user = info.Tenant.Spec.Admins[0]
	}
	token, err := localproxy.NewToken()
	if err != nil {
		return nil, err
	}
	p, err := localproxy.New(localproxy.Config{Upstream: upstream, NewPolicyClient: tenantctl.PolicyClientFor, Tenant: tenant, User: user, Admin: true, Token: token})
	if err != nil {
		return nil, fmt.Errorf("the view of tenant %s: %w", tenant, err)
	}
	srv := localproxy.NewServer(p, "127.0.0.1:0")
	if err := srv.Start(); err != nil {
		return nil, err
	}
	cfg := srv.ClientConfig(token)
	cfg.QPS, cfg.Burst = 50, 100
	return &tenantView{Config: cfg, Upstream: upstream, srv: srv}, nil
}

// Close stops serving the view.
func (v *tenantView) Close() {
	_ = v.srv.Shutdown(context.Background())
}

// tenantCommand is a command on one tenant: its NAME, then Validate and Run.
type tenantCommand interface {
	setTenant(name string)
	Validate() error
	Run(cmd *cobra.Command) error
}

// runOnTenant is the RunE of a tenantCommand.
func runOnTenant(o tenantCommand) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		o.setTenant(args[0])
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd)
	}
}
