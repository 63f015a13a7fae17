package cmd

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// TenantUserListOptions holds the flags of `kubectl zoo tenant user list`.
type TenantUserListOptions struct {
	Tenant string
	Output string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// UserGrantList is what `tenant user list -o json|yaml` prints.
type UserGrantList struct {
	Items []users.UserGrant `json:"items"`
}

// NewCmdTenantUserList returns `kubectl zoo tenant user list [TENANT]`.
func NewCmdTenantUserList(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantUserListOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:               "list [TENANT]",
		Aliases:           []string{"ls"},
		Short:             "List the upstream users granted a tenant identity",
		Example:           "  kubectl zoo tenant user list\n  kubectl zoo tenant user list acme -o yaml",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeTenantNames(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Tenant = args[0]
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: one of json|yaml|name (default: a table)")
	return cmd
}

// Validate checks the output format.
func (o *TenantUserListOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml", "name":
		return nil
	}
	return fmt.Errorf("--output must be one of json|yaml|name, not %q", o.Output)
}

// Run lists the grants.
func (o *TenantUserListOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	grants, err := users.New(client.Client).ListUserGrants(cmd.Context(), o.Tenant)
	if err != nil {
		return err
	}
	return PrintUserGrants(o.IOStreams, o.Output, grants)
}

// PrintUserGrants prints grants in output format (see
// TenantUserListOptions.Output); -o name prints TENANT/UPSTREAM-USER.
func PrintUserGrants(streams genericiooptions.IOStreams, output string, grants []users.UserGrant) error {
	switch output {
	case "name":
		for _, g := range grants {
			fmt.Fprintf(streams.Out, "%s/%s\n", g.Tenant, g.UpstreamUser)
		}
		return nil
	case "json", "yaml":
		doc := UserGrantList{Items: grants}
		if doc.Items == nil {
			doc.Items = []users.UserGrant{}
		}
		b, err := json.MarshalIndent(doc, "", "    ")
		if err == nil && output == "yaml" {
			b, err = yaml.JSONToYAML(b)
		}
		if err != nil {
			return err
		}
		if output == "json" {
			b = append(b, '\n')
		}
		_, err = streams.Out.Write(b)
		return err
	}
	if len(grants) == 0 {
		_, err := fmt.Fprintln(streams.ErrOut, "No upstream users granted.")
		return err
	}
	tw := tabwriter.NewWriter(streams.Out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "TENANT\tUPSTREAM-USER\tACTS-AS")
	for _, g := range grants {
		fmt.Fprintf(tw, "%s\t%s\tzoo:%s:%s\n", g.Tenant, g.UpstreamUser, g.Tenant, g.User)
	}
	return tw.Flush()
}
