// Package cmd holds the cobra commands of kubectl-zoo, one file per command.
// Each command is a thin layer (flags, Complete, Validate, Run) over the
// packages that do the work: translate, localproxy (serve), zooserver (serve
// --listen), the administrator's side over upstream's client: tenantctl
// (tenants), install (install, install --server), policyctl (tenant policies in force), users (tenant user, the grants of
// cert), transfer (tenant export|import), admissionrules (the rules install
// applies); the record is tenantapi's, the objects written for a tenant are
// built by platformobj; certs, verify.
package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdZoo returns the root `kubectl zoo` command with every subcommand
// attached and kubectl's connection flags (--kubeconfig, --context, -n, ...)
// registered once on its persistent flags.
func NewCmdZoo(streams genericiooptions.IOStreams) *cobra.Command {
	configFlags := genericclioptions.NewConfigFlags(true)

	root := &cobra.Command{
		Use:   "kubectl zoo",
		Short: "Share one Kubernetes cluster between many tenants",
		Long: `kubectl zoo lets many tenants share one Kubernetes cluster while each sees a
whole cluster of its own. A translating proxy adds the tenant's prefix to
everything the tenant owns on the way to the shared cluster and strips it on
the way back; the shared cluster's RBAC and admission still decide.`,
		SilenceUsage:  true,
		SilenceErrors: false,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl zoo",
		},
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	configFlags.AddFlags(root.PersistentFlags())

	root.AddCommand(NewCmdVersion(streams))
	root.AddCommand(NewCmdInstall(configFlags, streams))
	root.AddCommand(NewCmdTenant(configFlags, streams))
	root.AddCommand(NewCmdCert(configFlags, streams))
	root.AddCommand(NewCmdPolicy(configFlags, streams))
	root.AddCommand(NewCmdServe(configFlags, streams))
	root.AddCommand(NewCmdExplain(configFlags, streams))
	root.AddCommand(NewCmdVerify(configFlags, streams))
	return root
}
