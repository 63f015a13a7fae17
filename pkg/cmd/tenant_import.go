package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/transfer"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TenantImportOptions holds the flags of `kubectl zoo tenant import`.
type TenantImportOptions struct {
	Tenant   string
	Filename string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdTenantImport returns `kubectl zoo tenant import NAME -f FILE`.
func NewCmdTenantImport(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantImportOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "import NAME -f FILE",
		Short: "Recreate the objects of an export in a tenant, through its own view",
		Long: `Apply every object of FILE (an export, or any manifests) in the tenant's own names,
through the tenant's view: CRDs first, waiting until they serve their kinds, then
namespaces, RBAC and the rest. What the tenant's policy or confinement refuses is
reported with the API's error, object by object, and the command fails; the other
objects are applied. "-f -" reads standard input. See docs/export.md.`,
		Example: `  kubectl zoo tenant export acme -f acme.yaml
  kubectl zoo tenant import acme2 -f acme.yaml`,
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE:              runOnTenant(o),
	}
	cmd.Flags().StringVarP(&o.Filename, "filename", "f", "", "The file to import (an export); - for standard input")
	return cmd
}

func (o *TenantImportOptions) setTenant(name string) { o.Tenant = name }

// Validate checks the flags before anything is sent.
func (o *TenantImportOptions) Validate() error {
	if err := translate.ValidateTenantName(o.Tenant); err != nil {
		return err
	}
	if o.Filename == "" {
		return fmt.Errorf("-f FILE is required")
	}
	return nil
}

// Run reads the file and applies it through the tenant's view.
func (o *TenantImportOptions) Run(cmd *cobra.Command) error {
	objs, err := o.read()
	if err != nil {
		return err
	}
	view, err := openTenantView(cmd.Context(), o.getter, o.Tenant)
	if err != nil {
		return err
	}
	defer view.Close()
	res, err := transfer.Import(cmd.Context(), view.Config, objs, transfer.ImportOptions{
		Applied: func(obj *unstructured.Unstructured, created bool) {
			verb := "configured"
			if created {
				verb = "created"
			}
			fmt.Fprintf(o.Out, "%s %s\n", objectName(obj), verb)
		},
		Refused: func(obj *unstructured.Unstructured, err error) {
			fmt.Fprintf(o.ErrOut, "refused: %s: %v\n", objectName(obj), err)
		},
	})
	if err != nil {
		return err
	}
	if res.Refused > 0 {
		return fmt.Errorf("tenant %s refused %d of %d objects (listed above); the other %d are applied", o.Tenant, res.Refused, len(objs), res.Applied)
	}
	return nil
}

// read reads the objects of the file (or standard input).
func (o *TenantImportOptions) read() ([]*unstructured.Unstructured, error) {
	var in io.Reader = o.In
	if o.Filename != "-" {
		f, err := os.Open(o.Filename)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	objs, err := transfer.ReadManifests(in)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", o.Filename, err)
	}
	return objs, nil
}

// objectName names an object as kubectl does: kind.group/name, with its
// namespace.
func objectName(obj *unstructured.Unstructured) string {
	name := obj.GetKind()
	if g := obj.GroupVersionKind().Group; g != "" {
		name += "." + g
	}
	name += "/" + obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		name += " (namespace " + ns + ")"
	}
	return printable(name)
}

// printable replaces what a terminal would interpret (escape sequences of a
// crafted file) with '?'.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsGraphic(r) {
			return r
		}
		return '?'
	}, s)
}
