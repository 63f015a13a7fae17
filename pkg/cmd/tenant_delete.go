package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TenantDeleteOptions holds the flags of `kubectl zoo tenant delete`.
type TenantDeleteOptions struct {
	Name    string
	Wait    bool
	Timeout time.Duration

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewTenantDeleteOptions returns TenantDeleteOptions writing to streams.
func NewTenantDeleteOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *TenantDeleteOptions {
	return &TenantDeleteOptions{Wait: true, Timeout: 5 * time.Minute, getter: getter, IOStreams: streams}
}

// NewCmdTenantDelete returns `kubectl zoo tenant delete NAME`.
func NewCmdTenantDelete(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewTenantDeleteOptions(getter, streams)
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a tenant and everything it owns",
		Long: `Delete a tenant and everything it owns: its namespaces (and so their objects), its
cluster-scoped objects, its CRDs (and so their custom resources), its RBAC and its
admission binding. An object is the tenant's only if it carries the label
zoo.kubectl-zoo.io/tenant=NAME and its name (for a CRD, its group) starts with NAME-.`,
		Example:           "  kubectl zoo tenant delete acme\n  kubectl zoo tenant delete acme --wait=false",
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
	cmd.Flags().BoolVar(&o.Wait, "wait", o.Wait, "Wait until the tenant's namespaces are gone")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", o.Timeout, "How long --wait waits")
	return cmd
}

// Complete takes the tenant name.
func (o *TenantDeleteOptions) Complete(args []string) error {
	o.Name = args[0]
	return nil
}

// Validate checks the name and the timeout.
func (o *TenantDeleteOptions) Validate() error {
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, not %s", o.Timeout)
	}
	return translate.ValidateTenantName(o.Name)
}

// Run deletes the tenant, with progress on a terminal.
func (o *TenantDeleteOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	res, err := client.DeleteTenant(cmd.Context(), o.Name, tenantctl.DeleteOptions{
		Wait: o.Wait, Timeout: o.Timeout, Progress: progressTo(o.Out),
	})
	if err != nil {
		return err
	}
	state := "deleted"
	if !o.Wait && len(res.Namespaces) > 0 {
		state = "deleted (namespaces still terminating)"
	}
	_, err = fmt.Fprintf(o.Out, "tenant/%s %s: %d namespace(s), %d cluster-scoped object(s)\n", o.Name, state, len(res.Namespaces), len(res.Objects))
	return err
}
