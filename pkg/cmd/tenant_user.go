package cmd

import (
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdTenantUser returns `kubectl zoo tenant user` with its subcommands
// add, remove and list.
func NewCmdTenantUser(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Let users the cluster already knows act as one tenant identity",
		Long: `Let a user the cluster already authenticates (OIDC, cloud IAM: alice@corp) run
kubectl zoo serve --tenant T --user U with their own login: add grants the
impersonation of exactly the tenant identity zoo:T:U (and the tenant's group
zoo:tenant:T) and the read of T's record, nothing else. See docs/certificates.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(NewCmdTenantUserAdd(getter, streams))
	cmd.AddCommand(NewCmdTenantUserRemove(getter, streams))
	cmd.AddCommand(NewCmdTenantUserList(getter, streams))
	return cmd
}

// completeUpstreamUsers completes --upstream-user with the upstream users
// granted in the tenant named by the first argument.
func completeUpstreamUsers(getter genericclioptions.RESTClientGetter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		client, err := newTenantClient(getter)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		grants, err := users.New(client.Client).ListUserGrants(cmd.Context(), args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, g := range grants {
			if strings.HasPrefix(g.UpstreamUser, toComplete) {
				out = append(out, g.UpstreamUser)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
