package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// CertListOptions holds the flags of `kubectl zoo cert list`.
type CertListOptions struct {
	Tenant string
	Output string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdCertList returns `kubectl zoo cert list`.
func NewCmdCertList(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CertListOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the recorded client certificates",
		Example: "  kubectl zoo cert list\n  kubectl zoo cert list --tenant acme -o yaml\n  kubectl zoo cert list -o name",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVar(&o.Tenant, "tenant", "", "Only this tenant's certificates")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: one of json|yaml|name (default: a table)")
	_ = cmd.RegisterFlagCompletionFunc("tenant", completeTenantNames(getter))
	return cmd
}

// Validate checks the output format.
func (o *CertListOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml", "name":
		return nil
	}
	return fmt.Errorf("--output must be one of json|yaml|name, not %q", o.Output)
}

// Run lists the certificates.
func (o *CertListOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	now := time.Now()
	list, err := certs.List(cmd.Context(), users.New(client.Client).Certs(), o.Tenant, now)
	if err != nil {
		return err
	}
	return PrintCertificates(o.IOStreams, o.Output, list, now)
}

// PrintCertificates prints certificates in output format (see
// CertListOptions.Output).
func PrintCertificates(streams genericiooptions.IOStreams, output string, list []certs.Listed, now time.Time) error {
	switch output {
	case "name":
		for _, c := range list {
			fmt.Fprintln(streams.Out, c.Serial)
		}
		return nil
	case "json", "yaml":
		doc := certs.CertificateList{Items: list}
		if doc.Items == nil {
			doc.Items = []certs.Listed{}
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
	if len(list) == 0 {
		_, err := fmt.Fprintln(streams.ErrOut, "No certificates found.")
		return err
	}
	return certs.PrintTable(streams.Out, list, now)
}

// completeCertificates completes with the recorded certificates of the
// --tenant flag's tenant (every tenant's when unset): their serials, or
// (byUser) their users.
func completeCertificates(getter genericclioptions.RESTClientGetter, byUser bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if !byUser && len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		client, err := newTenantClient(getter)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		tenant, _ := cmd.Flags().GetString("tenant")
		list, err := certs.List(cmd.Context(), users.New(client.Client).Certs(), tenant, time.Now())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, c := range list {
			word := c.Serial
			if byUser {
				word = c.User
			}
			if strings.HasPrefix(word, toComplete) && !slices.Contains(out, word) {
				out = append(out, word)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
