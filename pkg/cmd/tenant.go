package cmd

import (
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// NewCmdTenant returns `kubectl zoo tenant` with its subcommands create,
// list, get, delete, user, export, import, sleep and wake.
func NewCmdTenant(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tenant",
		Short: "Create, list, inspect and delete tenants",
		Long: `Tenants are records in the shared cluster (kind Tenant, group zoo.kubectl-zoo.io).
Everything a tenant owns carries the prefix <tenant>- upstream.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(NewCmdTenantCreate(getter, streams))
	cmd.AddCommand(NewCmdTenantList(getter, streams))
	cmd.AddCommand(NewCmdTenantGet(getter, streams))
	cmd.AddCommand(NewCmdTenantDelete(getter, streams))
	cmd.AddCommand(NewCmdTenantUser(getter, streams))
	cmd.AddCommand(NewCmdTenantExport(getter, streams))
	cmd.AddCommand(NewCmdTenantImport(getter, streams))
	cmd.AddCommand(NewCmdTenantSleep(getter, streams))
	cmd.AddCommand(NewCmdTenantWake(getter, streams))
	return cmd
}

// newTenantClient builds a tenantctl client from kubectl's connection flags.
func newTenantClient(getter genericclioptions.RESTClientGetter) (*tenantctl.Client, error) {
	config, err := getter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return tenantctl.NewClient(config)
}

// completeTenantNames completes the NAME argument of get and delete with
// the names of the cluster's tenants.
func completeTenantNames(getter genericclioptions.RESTClientGetter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		client, err := newTenantClient(getter)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		infos, _, err := client.ListTenants(cmd.Context(), upstream.DefaultChunkSize)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []cobra.Completion
		for _, info := range infos {
			if strings.HasPrefix(info.Tenant.Name, toComplete) {
				names = append(names, info.Tenant.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// isTerminal reports whether w is a terminal (progress is shown only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressTo returns a progress printer writing to w when it is a terminal,
// and nil (no progress) otherwise.
func progressTo(w io.Writer) func(format string, args ...any) {
	if !isTerminal(w) {
		return nil
	}
	return func(format string, args ...any) {
		_, _ = io.WriteString(w, sprintfLine(format, args...))
	}
}
