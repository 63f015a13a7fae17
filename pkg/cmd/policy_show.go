package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
)

// PolicyShowOptions holds the flags of `kubectl zoo policy show`.
type PolicyShowOptions struct {
	Tenant string
	Output string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdPolicyShow returns `kubectl zoo policy show TENANT`.
func NewCmdPolicyShow(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PolicyShowOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:               "show TENANT",
		Short:             "Show the policy in force for a tenant",
		Example:           "  kubectl zoo policy show acme\n  kubectl zoo policy show acme -o yaml > policy.yaml",
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: one of json|yaml (default: a table)")
	return cmd
}

// Complete takes the tenant name.
func (o *PolicyShowOptions) Complete(args []string) error {
	o.Tenant = args[0]
	return nil
}

// Validate checks the output format.
func (o *PolicyShowOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("--output must be one of json|yaml, not %q", o.Output)
}

// Run prints the tenant's effective policy.
func (o *PolicyShowOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	p, err := policyctl.New(client.Client).TenantPolicy(cmd.Context(), o.Tenant)
	if err != nil {
		return err
	}
	return policyctl.PrintPolicy(o.Out, o.Output, o.Tenant, p)
}
