package cmd

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/transfer"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TenantExportOptions holds the flags of `kubectl zoo tenant export`.
type TenantExportOptions struct {
	Tenant         string
	Output         string
	OutputFile     string
	IncludeSecrets bool

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdTenantExport returns `kubectl zoo tenant export NAME`.
func NewCmdTenantExport(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantExportOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "export NAME [-o yaml|json] [--include-secrets] [-f FILE]",
		Short: "Write every object a tenant owns as plain manifests, in its own names",
		Long: `Write every object the tenant owns, as the tenant sees it (names without the tenant's
prefix), without what the cluster fills in (uid, resourceVersion, status, cluster IPs,
objects its controllers make), in apply order: CRDs, namespaces, RBAC, then the rest.
The file applies with 'kubectl zoo tenant import' to a tenant of this or another cluster,
and with 'kubectl apply -f' to a plain cluster. Secrets only with --include-secrets.
See docs/export.md.`,
		Example: `  kubectl zoo tenant export acme -f acme.yaml
  kubectl zoo tenant export acme --include-secrets -o json > acme.json`,
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE:              runOnTenant(o),
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "yaml", "Output format: yaml or json")
	cmd.Flags().StringVarP(&o.OutputFile, "output-file", "f", "", "Write to this file (mode 0600) instead of standard output")
	cmd.Flags().BoolVar(&o.IncludeSecrets, "include-secrets", false, "Export Secrets too (their data is only base64-encoded)")
	return cmd
}

func (o *TenantExportOptions) setTenant(name string) { o.Tenant = name }

// Validate checks the flags before anything is sent.
func (o *TenantExportOptions) Validate() error {
	if err := translate.ValidateTenantName(o.Tenant); err != nil {
		return err
	}
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output must be yaml or json, not %q", o.Output)
	}
	return nil
}

// Run reads the tenant through its view and writes the export.
func (o *TenantExportOptions) Run(cmd *cobra.Command) error {
	if o.IncludeSecrets {
		fmt.Fprintf(o.ErrOut, "Warning: the export holds the Secrets of tenant %s, readable by anyone who reads the file\n", o.Tenant)
	}
	view, err := openTenantView(cmd.Context(), o.getter, o.Tenant)
	if err != nil {
		return err
	}
	defer view.Close()
	bar := newProgressBar(o.ErrOut)
	res, err := transfer.Export(cmd.Context(), view.Config, view.Upstream, o.Tenant, transfer.ExportOptions{IncludeSecrets: o.IncludeSecrets, Progress: bar})
	if err != nil {
		return err
	}
	var buf bytes.Buffer // written whole, only once the export is complete
	if err := transfer.WriteManifests(&buf, res.Objects, o.Output); err != nil {
		return err
	}
	if err := o.write(buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(o.ErrOut, "exported %d objects of tenant %s%s\n", len(res.Objects), o.Tenant, omittedSummary(res.Omitted))
	return nil
}

// write writes data to the output file, or to Out.
func (o *TenantExportOptions) write(data []byte) error {
	if o.OutputFile == "" {
		_, err := o.Out.Write(data)
		return err
	}
	if err := os.WriteFile(o.OutputFile, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", o.OutputFile, err)
	}
	return nil
}

// omittedSummary says how many objects were left out and why.
func omittedSummary(omitted map[string]int) string {
	if len(omitted) == 0 {
		return ""
	}
	var parts []string
	for _, why := range slices.Sorted(maps.Keys(omitted)) {
		parts = append(parts, fmt.Sprintf("%d %s", omitted[why], why))
	}
	return "; left out: " + strings.Join(parts, "; ")
}

// newProgressBar returns a progress callback drawing a bar on w when w is a
// terminal, and nil (no progress) otherwise.
func newProgressBar(w io.Writer) func(done, total int, what string) {
	if !isTerminal(w) {
		return nil
	}
	const width = 30
	return func(done, total int, what string) {
		filled := width
		if total > 0 {
			filled = width * done / total
		}
		fmt.Fprintf(w, "\r\033[K[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total, what)
		if done == total {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}
