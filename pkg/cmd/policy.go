package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdPolicy returns `kubectl zoo policy` and its subcommands set and
// show.
func NewCmdPolicy(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Set and show a tenant's policy: quota, Pod Security, priority, isolation, rate limits",
		Long: `A tenant's policy is stored in its Tenant record (spec.policy) and enforced upstream:
the Pod Security level of every tenant namespace, the cluster PriorityClasses of
positive value its pods may use, quotas, limit ranges, network isolation and its
fair share of the proxy and the server. New tenants get the cluster's default
policy (kubectl zoo install --default-policy). See docs/policies.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(NewCmdPolicySet(getter, streams))
	cmd.AddCommand(NewCmdPolicyShow(getter, streams))
	return cmd
}
