package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// TenantGetOptions holds the flags of `kubectl zoo tenant list` and
// `kubectl zoo tenant get NAME`.
type TenantGetOptions struct {
	// Name is empty for list.
	Name       string
	PrintFlags *genericclioptions.PrintFlags
	// ChunkSize is how many objects one upstream list request asks for
	// (list only; 0: all at once).
	ChunkSize int64

	printer printers.ResourcePrinter
	getter  genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewTenantGetOptions returns TenantGetOptions writing to streams.
func NewTenantGetOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *TenantGetOptions {
	return &TenantGetOptions{PrintFlags: genericclioptions.NewPrintFlags("").WithDefaultOutput(""), ChunkSize: upstream.DefaultChunkSize,
		getter: getter, IOStreams: streams}
}

// NewCmdTenantList returns `kubectl zoo tenant list`.
func NewCmdTenantList(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewTenantGetOptions(getter, streams)
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List tenants",
		Example: "  kubectl zoo tenant list\n  kubectl zoo tenant list -o name\n  kubectl zoo tenant list --chunk-size 100",
		Args:    cobra.NoArgs,
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
	o.addFlags(cmd)
	cmd.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize,
		"Read tenants and their namespaces from the cluster in chunks of this many rather than all at once. Pass 0 to disable.")
	return cmd
}

// NewCmdTenantGet returns `kubectl zoo tenant get NAME`.
func NewCmdTenantGet(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewTenantGetOptions(getter, streams)
	cmd := &cobra.Command{
		Use:               "get NAME",
		Short:             "Show the details of a tenant",
		Example:           "  kubectl zoo tenant get acme\n  kubectl zoo tenant get acme -o yaml",
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
	o.addFlags(cmd)
	return cmd
}

func (o *TenantGetOptions) addFlags(cmd *cobra.Command) {
	o.PrintFlags.JSONYamlPrintFlags.AddFlags(cmd)
	cmd.Flags().StringVarP(o.PrintFlags.OutputFormat, "output", "o", "", "Output format: one of json|yaml|name (default: a table, or details for get)")
}

// Complete takes the optional name and builds the printer.
func (o *TenantGetOptions) Complete(args []string) error {
	if len(args) == 1 {
		o.Name = args[0]
	}
	if *o.PrintFlags.OutputFormat == "" {
		return nil
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate checks the output format.
func (o *TenantGetOptions) Validate() error {
	if o.ChunkSize < 0 {
		return fmt.Errorf("--chunk-size must be 0 or more, not %d", o.ChunkSize)
	}
	switch *o.PrintFlags.OutputFormat {
	case "", "json", "yaml", "name":
		return nil
	}
	return fmt.Errorf("--output must be one of json|yaml|name, not %q", *o.PrintFlags.OutputFormat)
}

// Run prints the tenant(s).
func (o *TenantGetOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	now := time.Now()
	if o.Name != "" {
		info, raw, err := client.GetTenant(cmd.Context(), o.Name)
		if err != nil {
			return err
		}
		if o.printer != nil {
			return o.printer.PrintObj(raw, o.Out)
		}
		return tenantctl.Describe(o.Out, info, now)
	}
	infos, list, err := client.ListTenants(cmd.Context(), o.ChunkSize)
	if err != nil {
		return err
	}
	if o.printer != nil {
		var obj runtime.Object = list
		return o.printer.PrintObj(obj, o.Out)
	}
	if len(infos) == 0 {
		_, err := fmt.Fprintln(o.ErrOut, "No tenants found.")
		return err
	}
	return tenantctl.PrintTable(o.Out, infos, now)
}
