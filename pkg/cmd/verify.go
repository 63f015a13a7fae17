package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/verify"
)

// VerifyOptions holds the flags of `kubectl zoo verify`.
type VerifyOptions struct {
	// Tenant checks this existing tenant instead of scratch tenants.
	Tenant string
	// Yes deletes and remakes the scratch tenants an earlier run left.
	Yes bool
	// Keep leaves the scratch tenants for inspection.
	Keep bool
	// Output is -o: table or json.
	Output string
	// JUnit is a file to write the JUnit XML report to, or "".
	JUnit string
	// ServerURL and ServerCA (a PEM file) name the zoo server to attack
	// through; by default its Service's, when `install --server` made it.
	ServerURL string
	ServerCA  string
	// DataPlane runs pods of Image to see the network plugin isolate the
	// scratch tenants.
	DataPlane bool
	Image     string
	// Profile is the color profile of Out; Complete detects it.
	Profile colorprofile.Profile

	serverCAPEM []byte
	getter      genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdVerify returns `kubectl zoo verify`.
func NewCmdVerify(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &VerifyOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "verify [--yes] [--keep] [--tenant T] [--server-url URL [--server-ca FILE]] [--data-plane --image I] [-o table|json] [--junit FILE]",
		Short: "Attack two scratch tenants to prove that tenants are isolated on this cluster",
		Long: `Make two throwaway tenants (` + verify.DefaultNames[0] + ` attacks ` + verify.DefaultNames[1] + ` and the platform),
try every attack of the catalog for real on every path a tenant has (the view
'kubectl zoo serve' serves, the tenant identity directly upstream, a tenant
pod's ServiceAccount token, and, when 'install --server' made it, the zoo
server with a client certificate and with that token), and report for each whether the boundary held
and which layer held it. Writes are server-side dry runs, but for what the
proxy makes harmless: that is written in the attacker's own names and read
back. The scratch tenants are deleted at the end, also on Ctrl-C or an
error, unless --keep. A last section reads the cluster's environment: its
release, the Pod Security level that really holds, the admission policies
in force, and with --data-plane --image I (sh and nc, busybox's) whether the
network plugin keeps a pod of one tenant from connecting to the other's.
With --tenant T it checks the existing tenant T against its policy instead,
attacking no one: dry runs and reads only, through serve and as T's admin.
Exits 0 only when nothing escaped. See docs/verify.md.`,
		Example: `  kubectl zoo verify
  kubectl zoo verify -o json --junit verify.xml
  kubectl zoo verify --tenant acme
  kubectl zoo verify --server-url https://zoo.example.com --server-ca zoo-ca.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&o.Tenant, "tenant", "", "Check this existing tenant against its policy instead, attacking no one: dry runs and reads only")
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "Delete and remake the scratch tenants an earlier run left (--keep)")
	cmd.Flags().BoolVar(&o.Keep, "keep", false, "Leave the scratch tenants for inspection")
	cmd.Flags().StringVar(&o.ServerURL, "server-url", "", "The zoo server's URL (default: its Service's, "+tenantapi.ServerURL+", when install --server made it)")
	cmd.Flags().StringVar(&o.ServerCA, "server-ca", "", "A PEM file of the CA that verifies the zoo server (default: the ConfigMap install wrote)")
	cmd.Flags().BoolVar(&o.DataPlane, "data-plane", false, "Also run pods (of --image) in the scratch tenants and try a connection between them, to see the network plugin enforce their NetworkPolicy")
	cmd.Flags().StringVar(&o.Image, "image", "", "With --data-plane: an image with sh and nc (busybox's), e.g. busybox:1.37")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "table", "Output format: table or json")
	cmd.Flags().StringVar(&o.JUnit, "junit", "", "Also write the results as JUnit XML to this file")
	return cmd
}

// Complete detects the color profile of Out and reads --server-ca.
func (o *VerifyOptions) Complete() error {
	if o.Profile == colorprofile.Unknown {
		o.Profile = colorprofile.Detect(o.Out, os.Environ())
	}
	if o.ServerCA == "" {
		return nil
	}
	ca, err := os.ReadFile(o.ServerCA)
	if err != nil {
		return fmt.Errorf("read --server-ca: %w", err)
	}
	o.serverCAPEM = ca
	return nil
}

// Validate checks the flags before anything is sent.
func (o *VerifyOptions) Validate() error {
	if o.Output != "table" && o.Output != "json" {
		return fmt.Errorf("--output must be table or json, not %q", o.Output)
	}
	if o.DataPlane != (o.Image != "") {
		return errors.New("--data-plane and --image go together: --data-plane --image I runs pods of I")
	}
	if o.Tenant == "" {
		return nil
	}
	if o.DataPlane {
		return errors.New("--tenant makes nothing: --data-plane does not apply")
	}
	if o.ServerURL != "" || o.ServerCA != "" {
		return errors.New("--tenant does not attack through the zoo server: --server-url and --server-ca do not apply")
	}
	if o.Keep || o.Yes {
		return errors.New("--tenant makes no scratch tenants: --keep and --yes do not apply")
	}
	if err := translate.ValidateTenantName(o.Tenant); err != nil {
		return fmt.Errorf("--tenant: %w", err)
	}
	return nil
}

// Run runs verify until it is done or interrupted (SIGINT, SIGTERM: the
// scratch tenants are still deleted; a second signal ends the process at
// once), prints the report and fails when an attempt escaped.
func (o *VerifyOptions) Run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { // the first signal cleans up; a second one ends the process
		<-ctx.Done()
		stop()
	}()
	upstream, err := o.getter.ToRESTConfig()
	if err != nil {
		return err
	}
	rep, err := verify.Run(ctx, verify.Options{
		Upstream: upstream, Names: verify.DefaultNames, Tenant: o.Tenant, Yes: o.Yes, Keep: o.Keep, RequestTimeout: upstream.Timeout,
		Server: verify.ServerEndpoint{URL: o.ServerURL, CAPEM: o.serverCAPEM}, DataPlaneImage: o.Image,
		OpenView: openVerifyView, Progress: newProgressBar(o.ErrOut), Log: progressTo(o.ErrOut),
	})
	if err != nil {
		return err
	}
	if err := o.print(rep); err != nil {
		return err
	}
	if n := rep.Count(verify.Escaped); n > 0 {
		return fmt.Errorf("%d of %d attempts escaped (%s)", n, len(rep.Results), verify.Summary(rep))
	}
	return nil
}

// openVerifyView serves the view of tenant in-process for verify.
func openVerifyView(ctx context.Context, upstream *rest.Config, tenant string) (*rest.Config, func(), error) {
	v, err := openTenantViewOn(ctx, upstream, tenant)
	if err != nil {
		return nil, func() {}, err
	}
	return v.Config, v.Close, nil
}

// print writes the report to Out and, with --junit, to its file.
func (o *VerifyOptions) print(rep *verify.Report) error {
	var err error
	if o.Output == "json" {
		err = verify.WriteJSON(o.Out, rep)
	} else {
		err = verify.WriteTable(&colorprofile.Writer{Forward: o.Out, Profile: o.Profile}, rep)
	}
	if err != nil || o.JUnit == "" {
		return err
	}
	f, err := os.OpenFile(o.JUnit, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write --junit: %w", err)
	}
	return errors.Join(verify.WriteJUnit(f, rep), f.Close())
}
