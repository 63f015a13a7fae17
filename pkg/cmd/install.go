package cmd

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// InstallOptions holds the flags of `kubectl zoo install`.
type InstallOptions struct {
	DryRun     string
	Uninstall  bool
	Force      bool
	Server     bool
	Replicas   int32
	Image      string
	PrintFlags *genericclioptions.PrintFlags
	// DefaultPolicyFile is a YAML or JSON policy (--default-policy) that
	// `tenant create` copies into new tenants.
	DefaultPolicyFile string
	// WebhookKeys (--webhook-keys) are the keys the platform's own mutating
	// webhooks add to pods; nil keeps the installed ones.
	WebhookKeys []string

	// defaultPolicy is DefaultPolicyFile, read and validated.
	defaultPolicy *policy.Policy

	// serverFlags is set when --replicas or --image was given.
	serverFlags bool

	printer printers.ResourcePrinter
	getter  genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewInstallOptions returns InstallOptions writing to streams.
func NewInstallOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *InstallOptions {
	return &InstallOptions{DryRun: "none", Replicas: 2, Image: DefaultServerImage(), PrintFlags: genericclioptions.NewPrintFlags("serverside-applied"), getter: getter, IOStreams: streams}
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
while tenants exist unless --force, which deletes the tenants too.

--server adds the server that serves every tenant from the cluster (kubectl zoo
serve --listen) in namespace zoo-system: its ServiceAccount and RBAC, a serving
certificate, a Deployment, a PodDisruptionBudget and a Service (docs/server.md).
Running it again keeps a still-valid certificate. --server --uninstall removes
only these; --uninstall alone removes them too.

--default-policy FILE stores the cluster's default tenant policy (a YAML or JSON
policy, as kubectl zoo policy show -o yaml prints): tenant create copies it into
every new tenant; existing tenants keep theirs (docs/policies.md).

--webhook-keys K1,K2 names the keys in the platform's domains that the
platform's own mutating webhooks add to pods (Istio's sidecar.istio.io/status):
the upstream policy sees a pod after them and lets these through on pods.
Installing again without the flag keeps them; --webhook-keys "" clears them.`,
		Example: `  kubectl zoo install
  kubectl zoo install --dry-run=client -o yaml
  kubectl zoo install --uninstall
  kubectl zoo install --server --replicas 3
  kubectl zoo install --server --dry-run=client -o yaml
  kubectl zoo install --server --uninstall
  kubectl zoo install --default-policy policy.yaml
  kubectl zoo install --webhook-keys sidecar.istio.io/status,istio.io/rev`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.serverFlags = cmd.Flags().Changed("replicas") || cmd.Flags().Changed("image")
			if cmd.Flags().Changed("webhook-keys") && o.WebhookKeys == nil {
				o.WebhookKeys = []string{}
			}
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
	cmd.Flags().BoolVar(&o.Server, "server", false, "Also install (with --uninstall: only remove) the server deployment in namespace zoo-system")
	cmd.Flags().Int32Var(&o.Replicas, "replicas", o.Replicas, "With --server: the number of server replicas (at least 1)")
	cmd.Flags().StringVar(&o.Image, "image", o.Image, "With --server: the server's container image")
	cmd.Flags().StringVar(&o.DefaultPolicyFile, "default-policy", "", "A YAML or JSON tenant policy that tenant create gives every new tenant")
	cmd.Flags().StringSliceVar(&o.WebhookKeys, "webhook-keys", nil, "Keys in the platform's domains that the platform's own mutating webhooks add to pods (\"\" for none; default: keep the installed ones)")
	return cmd
}

// Complete builds the printer and reads --default-policy.
func (o *InstallOptions) Complete() error {
	if o.DefaultPolicyFile != "" {
		data, err := os.ReadFile(o.DefaultPolicyFile)
		if err != nil {
			return fmt.Errorf("--default-policy: %w", err)
		}
		p, err := policy.Parse(data)
		if err != nil {
			return fmt.Errorf("--default-policy %s: %w", o.DefaultPolicyFile, joinedLines(err))
		}
		o.defaultPolicy = &p
	}
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

// installConfig is the platform's configuration the flags give, nil to
// keep the installed one.
func (o *InstallOptions) installConfig() *admissionrules.InstallConfig {
	if o.WebhookKeys == nil {
		return nil
	}
	var keys []string
	for _, k := range o.WebhookKeys {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return &admissionrules.InstallConfig{WebhookKeys: keys}
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
	if o.Server && o.Uninstall && o.Force {
		return fmt.Errorf("--force does not go with --server --uninstall, which deletes no tenant")
	}
	if o.DefaultPolicyFile != "" && o.Uninstall {
		return fmt.Errorf("--default-policy does not go with --uninstall")
	}
	if c := o.installConfig(); c != nil {
		if o.Uninstall {
			return fmt.Errorf("--webhook-keys does not go with --uninstall")
		}
		if err := c.Validate(); err != nil {
			return err
		}
	}
	if o.serverFlags && (!o.Server || o.Uninstall) {
		return fmt.Errorf("--replicas and --image only go with --server, when installing")
	}
	if o.Server && !o.Uninstall {
		return o.serverOptions().Validate()
	}
	return nil
}

// DefaultServerImage is the server image of this binary's version.
func DefaultServerImage() string {
	return tenantapi.DefaultServerImageRepository + ":" + CurrentVersion().Version
}

func (o *InstallOptions) serverOptions() install.ServerOptions {
	return install.ServerOptions{Replicas: o.Replicas, Image: o.Image}
}

// Run applies, prints or removes the cluster-side pieces.
func (o *InstallOptions) Run(cmd *cobra.Command) error {
	if o.DryRun == "client" {
		return o.printObjects()
	}
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	if o.Uninstall {
		return o.uninstall(cmd, client)
	}
	dryRun := o.DryRun == "server"
	applied, err := install.New(client.Client).Install(cmd.Context(), dryRun, o.installConfig())
	if err != nil {
		return err
	}
	if o.defaultPolicy != nil {
		if err := policyctl.New(client.Client).SetDefaultPolicy(cmd.Context(), *o.defaultPolicy, dryRun); err != nil {
			return err
		}
	}
	if o.Server {
		server, err := install.New(client.Client).InstallServer(cmd.Context(), o.serverOptions(), dryRun, func(format string, args ...any) {
			_, _ = io.WriteString(o.ErrOut, sprintfLine(format, args...)) // what a dry run left out, always said
		})
		if err != nil {
			return err
		}
		applied = append(applied, server...)
	}
	for _, u := range applied {
		var obj runtime.Object = u
		if err := o.printer.PrintObj(obj, o.Out); err != nil {
			return err
		}
	}
	if o.Server && !dryRun {
		_, err = fmt.Fprint(o.Out, serverConnectHelp)
	}
	return err
}

// serverConnectHelp is printed after install --server.
var serverConnectHelp = fmt.Sprintf(`
Tenants connect to %s (in the cluster; expose the Service %s/%s to reach it
from outside), trusting the CA in ConfigMap %s/%s (key %s). They authenticate
with a client certificate of their tenant identity or with the token of a
ServiceAccount in one of their tenant's namespaces.
`, tenantapi.ServerURL, tenantapi.ServerNamespace, tenantapi.ServerName,
	tenantapi.ServerNamespace, tenantapi.ServerCAConfigMap, tenantapi.ServerCAKey)

// printObjects prints what install would apply (--dry-run=client).
func (o *InstallOptions) printObjects() error {
	var cfg admissionrules.InstallConfig
	if c := o.installConfig(); c != nil {
		cfg = *c
	}
	objs := install.InstallObjects(cfg)
	if o.defaultPolicy != nil {
		if err := policyctl.AnnotateDefaultPolicy(objs, *o.defaultPolicy); err != nil {
			return err
		}
	}
	if o.Server {
		server, err := install.ServerObjects(o.serverOptions())
		if err != nil {
			return err
		}
		objs = append(objs, server...)
	}
	for _, obj := range objs {
		u, err := upstream.ToUnstructured(obj)
		if err != nil {
			return err
		}
		if err := o.printer.PrintObj(u, o.Out); err != nil {
			return err
		}
	}
	return nil
}

// uninstall removes the server pieces (--server) or everything.
func (o *InstallOptions) uninstall(cmd *cobra.Command, client *tenantctl.Client) error {
	var (
		removed []string
		err     error
		what    = "kubectl-zoo"
	)
	if o.Server {
		what = "the kubectl-zoo server"
		removed, err = install.New(client.Client).UninstallServer(cmd.Context(), progressTo(o.Out))
	} else {
		removed, err = client.Uninstall(cmd.Context(), tenantctl.UninstallOptions{Force: o.Force, Progress: progressTo(o.Out)})
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.Out, "%s uninstalled (%d object(s) removed)\n", what, len(removed))
	return err
}
