package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ExplainOptions holds the flags and arguments of `kubectl zoo explain`.
type ExplainOptions struct {
	// TenantName is --tenant; optional with --reverse.
	TenantName string
	// Reverse maps upstream names back to tenants.
	Reverse bool
	// Filenames are the -f manifests ("-" for stdin).
	Filenames []string
	// Output is -o: "" (human), yaml or json.
	Output string
	// ClusterScoped treats custom resources of unknown scope as cluster-scoped.
	ClusterScoped bool
	// Namespace is -n (the root's connection flag), "default" when unset.
	Namespace string
	// Args are the TYPE/NAME arguments.
	Args []string
	// Profile is the color profile of Out; Complete detects it from Out and
	// the environment (NO_COLOR, CLICOLOR_FORCE, TERM) unless already set.
	Profile colorprofile.Profile
	// Environ is the environment for color detection; nil means os.Environ.
	Environ []string

	configFlags *genericclioptions.ConfigFlags
	tenant      *translate.Tenant
	resources   []resourceArg

	genericiooptions.IOStreams
}

// NewExplainOptions returns ExplainOptions for the root's connection flags,
// writing to streams.
func NewExplainOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *ExplainOptions {
	return &ExplainOptions{configFlags: configFlags, IOStreams: streams}
}

const explainLong = `Show how kubectl-zoo maps what a tenant sees to what the shared (upstream)
cluster stores, without talking to any cluster.

Resources are given like kubectl's: TYPE/NAME with kubectl's short names,
plurals, singulars or kinds (ns, deploy, cm, svc, pvc, pv, sc, crd,
clusterrole, ...), or TYPE.GROUP/NAME for a custom resource
(crontabs.stable.example.com/x). Namespaced objects are in -n NAMESPACE
(default "default"). explain knows the scope of built-in kinds only: a custom
resource is taken as namespaced unless --cluster-scoped is given.

With --reverse the names are upstream names and are mapped back: the owning
tenant comes from the name's prefix, so --tenant is optional; with --tenant, a
name of another tenant is reported as not that tenant's.

With -f, whole manifests (multi-document YAML, JSON or a List; "-" reads
stdin) are translated with the proxy's own translator. The translated objects
are printed with every changed field marked "# was: <old value>" and a summary
per object; with -o yaml|json only the translated objects are printed, ready
for kubectl apply against the upstream cluster.

Output is styled on a terminal and plain when piped (NO_COLOR and
CLICOLOR_FORCE are honoured).`

const explainExample = `  # Where do tenant acme's namespace, Deployment and CRD live upstream?
  kubectl zoo explain --tenant acme ns/default deploy/web -n default crd/crontabs.stable.example.com

  # A custom resource (namespaced unless --cluster-scoped)
  kubectl zoo explain --tenant acme crontabs.stable.example.com/x -n dev

  # Which tenant owns an upstream namespace, and what does it call it?
  kubectl zoo explain --reverse ns/acme-default cm/cfg -n acme-default

  # Translate a manifest for tenant acme and apply it to the upstream as an admin
  kubectl zoo explain --tenant acme -f app.yaml -o yaml | kubectl apply -f -`

// NewCmdExplain returns the `kubectl zoo explain` command. configFlags are the
// root's connection flags; explain reads only its namespace (-n).
func NewCmdExplain(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewExplainOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:     "explain [--tenant NAME] (TYPE/NAME ... | -f FILENAME) [-n NAMESPACE]",
		Short:   "Show how tenant names map to upstream names, and back",
		Long:    explainLong,
		Example: explainExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.TenantName, "tenant", "", "The tenant whose view is explained (optional with --reverse)")
	f.BoolVar(&o.Reverse, "reverse", false, "Map upstream names back to the owning tenant's view")
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "Manifest files or directories to translate (- for stdin)")
	f.StringVarP(&o.Output, "output", "o", "", "Output format: one of yaml|json (default: human-readable)")
	f.BoolVar(&o.ClusterScoped, "cluster-scoped", false, "Treat custom resources as cluster-scoped (explain cannot ask a cluster)")
	return cmd
}

// Complete fills in the tenant, the namespace and the color profile.
func (o *ExplainOptions) Complete(args []string) error {
	o.Args = args
	if o.Namespace == "" && o.configFlags != nil && o.configFlags.Namespace != nil {
		o.Namespace = *o.configFlags.Namespace
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.TenantName != "" {
		t, err := translate.NewTenant(o.TenantName)
		if err != nil {
			return fmt.Errorf("invalid --tenant: %w", err)
		}
		o.tenant = &t
	}
	if o.Profile == colorprofile.Unknown {
		env := o.Environ
		if env == nil {
			env = os.Environ()
		}
		o.Profile = colorprofile.Detect(o.Out, env)
	}
	return nil
}

// Validate checks the flags and resolves the TYPE/NAME arguments.
func (o *ExplainOptions) Validate() error {
	switch o.Output {
	case "", "yaml", "json":
	default:
		return fmt.Errorf("--output must be one of yaml|json, not %q", o.Output)
	}
	switch {
	case len(o.Args) > 0 && len(o.Filenames) > 0:
		return errors.New("give either TYPE/NAME arguments or -f, not both")
	case len(o.Args) == 0 && len(o.Filenames) == 0:
		return errors.New("nothing to explain: give TYPE/NAME arguments (for example ns/default) or -f FILENAME")
	case o.tenant == nil && !o.Reverse:
		return errors.New("--tenant is required (it is optional only with --reverse)")
	}
	o.resources = nil
	for _, arg := range o.Args {
		r, err := parseResourceArg(arg, o.ClusterScoped)
		if err != nil {
			return err
		}
		o.resources = append(o.resources, r)
	}
	return nil
}

// Run explains the arguments or manifests. Nothing is printed unless all of
// them could be explained.
func (o *ExplainOptions) Run() error {
	var buf bytes.Buffer
	var err error
	if len(o.Filenames) > 0 {
		err = o.runManifests(&buf)
	} else {
		err = o.runNames(&buf)
	}
	if err != nil {
		return err
	}
	var w io.Writer = o.Out
	if o.Output == "" {
		w = &colorprofile.Writer{Forward: o.Out, Profile: o.Profile}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func (o *ExplainOptions) runNames(w io.Writer) error {
	n := namer{tenant: o.tenant, reverse: o.Reverse, namespace: o.Namespace}
	mappings := make([]NameMapping, 0, len(o.resources))
	for _, r := range o.resources {
		m, err := n.mapArg(r)
		var te *translate.Error
		if errors.As(err, &te) {
			return errors.New(oneLine(te.Error()))
		} else if err != nil {
			return fmt.Errorf("%s: %s", r.Arg, oneLine(err.Error()))
		}
		mappings = append(mappings, m)
	}
	if o.Output != "" {
		return printMachine(w, o.Output, NameMappingList{Direction: direction(o.Reverse), Items: mappings})
	}
	printNames(w, mappings, o.Reverse)
	return nil
}

func (o *ExplainOptions) runManifests(w io.Writer) error {
	objs, err := readManifests(o.Filenames, o.In)
	if err != nil {
		return err
	}
	mt := manifestTranslator{tenant: o.tenant, reverse: o.Reverse, namespace: o.Namespace, clusterScoped: o.ClusterScoped}
	for i := range objs {
		if err := mt.translate(&objs[i]); err != nil {
			return err
		}
	}
	if o.Output != "" {
		return printManifestMachine(w, o.Output, objs)
	}
	return printManifestHuman(w, objs, o.Reverse)
}

// direction names the direction of a mapping in machine output.
func direction(reverse bool) string {
	if reverse {
		return "upstream-to-tenant"
	}
	return "tenant-to-upstream"
}
