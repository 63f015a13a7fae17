package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// TenantUserAddOptions holds the flags of `kubectl zoo tenant user add`.
type TenantUserAddOptions struct {
	Tenant       string
	UpstreamUser string
	As           string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdTenantUserAdd returns `kubectl zoo tenant user add TENANT`.
func NewCmdTenantUserAdd(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantUserAddOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "add TENANT --upstream-user USER [--as LOCAL]",
		Short: "Let an upstream user act as one tenant identity",
		Long: `Let the upstream user USER impersonate exactly the tenant identity zoo:TENANT:LOCAL
(with the group zoo:TENANT) and read TENANT's record: what
kubectl zoo serve --tenant TENANT --user LOCAL needs with USER's own login.
LOCAL defaults to USER itself, which must then be a valid tenant-local name
(letters, digits and . _ @ -); it may not be one of the tenant's administrators.
Adding again replaces the upstream user's earlier grant in the tenant.`,
		Example:           "  kubectl zoo tenant user add acme --upstream-user alice@corp.example\n  kubectl zoo tenant user add acme --upstream-user 'oidc:alice' --as alice",
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Complete(args)
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVar(&o.UpstreamUser, "upstream-user", "", "The user as the cluster authenticates it (required)")
	cmd.Flags().StringVar(&o.As, "as", "", "The tenant-local user to act as (default: the upstream user's name)")
	return cmd
}

// Complete takes the tenant and defaults --as to the upstream user.
func (o *TenantUserAddOptions) Complete(args []string) {
	o.Tenant = args[0]
	if o.As == "" {
		o.As = o.UpstreamUser
	}
}

// Validate checks the names before anything is asked of the cluster.
func (o *TenantUserAddOptions) Validate() error {
	if o.UpstreamUser == "" {
		return fmt.Errorf("--upstream-user is required")
	}
	return users.ValidateUserGrant(o.grant())
}

func (o *TenantUserAddOptions) grant() users.UserGrant {
	return users.UserGrant{Tenant: o.Tenant, UpstreamUser: o.UpstreamUser, User: o.As}
}

// Run writes the grant.
func (o *TenantUserAddOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	replaced, err := users.New(client.Client).AddUserGrant(cmd.Context(), o.grant())
	if err != nil {
		return err
	}
	verb := "granted"
	if replaced {
		verb = "replaced"
	}
	_, err = fmt.Fprintf(o.Out, "tenant/%s: %s: upstream user %q may act as %s (kubectl zoo serve --tenant %s --user %s)\n",
		o.Tenant, verb, o.UpstreamUser, "zoo:"+o.Tenant+":"+o.As, o.Tenant, o.As)
	return err
}
