package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// InstallOptions holds the flags of `kubectl zoo install`.
type InstallOptions struct {
	DryRun     string
	Uninstall  bool
	Force      bool
	PrintFlags *genericclioptions.PrintFlags

	printer printers.ResourcePrinter
	getter  genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewInstallOptions returns InstallOptions writing to streams.
func NewInstallOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *InstallOptions {
	return &InstallOptions{DryRun: "none", PrintFlags: genericclioptions.NewPrintFlags("serverside-applied"), getter: getter, IOStreams: streams}
}

// NewCmdInstall returns `kubectl zoo install`.
func NewCmdInstall(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewInstallOptions(getter, streams)
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install (or upgrade, or remove) kubectl-zoo's cluster-side pieces",
		Long: `Server-side apply (field manager kubectl-zoo) the Tenant CRD, the ValidatingAdmissionPolicies
that confine tenants, and the ClusterRoles of the security model (docs/security.md).
Running it again is safe and upgrades in place. --uninstall removes them; it refuses
while tenants exist unless --force, which deletes the tenants too.`,
		Example: `  kubectl zoo install
  kubectl zoo install --dry-run=client -o yaml
  kubectl zoo install --uninstall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().StringVar(&o.DryRun, "dry-run", o.DryRun, `Must be "none", "client" (print, change nothing) or "server" (server-side dry run)`)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = "client"
	cmd.Flags().BoolVar(&o.Uninstall, "uninstall", false, "Remove kubectl-zoo's cluster-side pieces")
	cmd.Flags().BoolVar(&o.Force, "force", false, "With --uninstall: delete all tenants too instead of refusing")
	return cmd
}

// Complete builds the printer.
func (o *InstallOptions) Complete() error {
	if o.DryRun != "none" {
		if err := o.PrintFlags.Complete("%s (dry run)"); err != nil {
			return err
		}
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate checks the flag combinations.
func (o *InstallOptions) Validate() error {
	switch o.DryRun {
	case "none", "client", "server":
	default:
		return fmt.Errorf(`--dry-run must be "none", "client" or "server", not %q`, o.DryRun)
	}
	if o.Force && !o.Uninstall {
		return fmt.Errorf("--force only goes with --uninstall")
	}
	if o.Uninstall && o.DryRun != "none" {
		return fmt.Errorf("--uninstall does not support --dry-run")
	}
	return nil
}

// Run applies, prints or removes the cluster-side pieces.
func (o *InstallOptions) Run(cmd *cobra.Command) error {
	if o.DryRun == "client" {
		for _, obj := range tenantctl.InstallObjects() {
			u, err := tenantctl.ToUnstructured(obj)
			if err != nil {
				return err
			}
			if err := o.printer.PrintObj(u, o.Out); err != nil {
				return err
			}
		}
		return nil
	}
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	if o.Uninstall {
		removed, err := client.Uninstall(cmd.Context(), tenantctl.UninstallOptions{Force: o.Force, Progress: progressTo(o.Out)})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.Out, "kubectl-zoo uninstalled (%d object(s) removed)\n", len(removed))
		return err
	}
	applied, err := client.Install(cmd.Context(), o.DryRun == "server")
	if err != nil {
		return err
	}
	for _, u := range applied {
		var obj runtime.Object = u
		if err := o.printer.PrintObj(obj, o.Out); err != nil {
			return err
		}
	}
	return nil
}
