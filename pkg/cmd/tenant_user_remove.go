package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// TenantUserRemoveOptions holds the flags of `kubectl zoo tenant user remove`.
type TenantUserRemoveOptions struct {
	Tenant       string
	UpstreamUser string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdTenantUserRemove returns `kubectl zoo tenant user remove TENANT`.
func NewCmdTenantUserRemove(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantUserRemoveOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:               "remove TENANT --upstream-user USER",
		Aliases:           []string{"rm"},
		Short:             "Take an upstream user's grant in a tenant back",
		Example:           "  kubectl zoo tenant user remove acme --upstream-user alice@corp.example",
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Tenant = args[0]
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVar(&o.UpstreamUser, "upstream-user", "", "The upstream user whose grant to remove (required)")
	_ = cmd.RegisterFlagCompletionFunc("upstream-user", completeUpstreamUsers(getter))
	return cmd
}

// Validate checks the names.
func (o *TenantUserRemoveOptions) Validate() error {
	if o.UpstreamUser == "" {
		return fmt.Errorf("--upstream-user is required")
	}
	if err := translate.ValidateTenantName(o.Tenant); err != nil {
		return err
	}
	return users.ValidateUpstreamUser(o.UpstreamUser)
}

// Run removes the grant.
func (o *TenantUserRemoveOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	g, err := users.New(client.Client).RemoveUserGrant(cmd.Context(), o.Tenant, o.UpstreamUser)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.Out, "tenant/%s: removed: upstream user %q may no longer act as %s\n", o.Tenant, g.UpstreamUser, "zoo:"+g.Tenant+":"+g.User)
	return err
}
