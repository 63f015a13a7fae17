package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	// Auth plugins (OIDC, ...) of the caller's kubeconfig; exec is built in.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ServeOptions holds the flags of `kubectl zoo serve`.
type ServeOptions struct {
	Tenant        string
	User          string
	Groups        []string
	Port          int
	KubeconfigOut string
	// ProfileAddress is where net/http/pprof is served (loopback only);
	// empty turns profiling off.
	ProfileAddress string
	// Server holds the flags of the multi-tenant server (--listen).
	Server ServerFlags

	upstream *rest.Config
	// userSet says --user was given; direct, that the credential is the
	// tenant user's own (serve_identity.go).
	userSet bool
	direct  bool
	getter  genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewServeOptions returns ServeOptions writing to streams.
func NewServeOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *ServeOptions {
	return &ServeOptions{getter: getter, IOStreams: streams}
}

// NewCmdServe returns `kubectl zoo serve --tenant NAME`.
func NewCmdServe(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewServeOptions(getter, streams)
	cmd := &cobra.Command{
		Use:   "serve ([--tenant NAME] [--user USER] [--port PORT] [--kubeconfig-out FILE] | --listen ADDR --tls-cert-file F --tls-private-key-file F)",
		Short: "Serve a tenant's view of the cluster on 127.0.0.1, or every tenant's as a server",
		Long: `Serve a tenant's view of the shared cluster on 127.0.0.1: a translating proxy
that prefixes what the tenant names, impersonates the tenant identity toward the
cluster of your kubeconfig, and strips the prefix on the way back.

With a tenant user's own credential (a certificate from "kubectl zoo cert issue
--signer kubernetes": user zoo:<tenant>:<user>, group zoo:tenant:<tenant>) it
impersonates no one: it serves that user's view with that credential, --tenant
may be omitted, and --tenant, --user and --group must agree with it. See
docs/certificates.md for what such a view can and cannot do.

It writes a kubeconfig (mode 0600) with the context zoo-<tenant> and a random
bearer token for this run, and prints how to use it. Stop it with Ctrl-C.

With --listen it is the multi-tenant server (what "kubectl zoo install --server"
deploys): it serves every tenant on ADDR over HTTPS and takes each caller's tenant
identity from its credential — a client certificate (CN zoo:<tenant>:<user>, O
zoo:tenant:<tenant>) signed by the cluster's client CA or --client-ca-file, or a
token of a ServiceAccount in a tenant namespace. It writes one JSON audit line per
mutating request to --audit-log and serves /livez, /readyz and /metrics.`,
		Example: `  kubectl zoo serve --tenant acme
  kubectl zoo serve --tenant acme --user dev --port 8001 --kubeconfig-out acme.kubeconfig
  KUBECONFIG=alice.kubeconfig kubectl zoo serve   # alice's own certificate, no impersonation
  kubectl zoo serve --listen :8443 --tls-cert-file tls.crt --tls-private-key-file tls.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.userSet = cmd.Flags().Changed("user")
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.Server.Listen != "" {
				return o.RunServer(ctx)
			}
			return o.Run(ctx)
		},
	}
	cmd.Flags().StringVar(&o.Tenant, "tenant", "", "Tenant whose view to serve (required unless your credential is a tenant user's own)")
	cmd.Flags().StringVar(&o.User, "user", translate.DefaultAdminUser, "Tenant user to act as")
	cmd.Flags().StringArrayVar(&o.Groups, "group", nil, "Tenant group of the user (repeatable)")
	cmd.Flags().IntVar(&o.Port, "port", 0, "Port on 127.0.0.1 to listen on (0 picks a free one)")
	cmd.Flags().StringVar(&o.KubeconfigOut, "kubeconfig-out", "", "Where to write the tenant kubeconfig (default: a file in the temp directory)")
	o.Server.AddFlags(cmd)
	cmd.Flags().StringVar(&o.ProfileAddress, "profile-address", "", "Serve net/http/pprof on this loopback host:port (port 0 picks a free one; the URL is printed); off when empty")
	return cmd
}

// Complete reads the upstream from the caller's kubeconfig.
func (o *ServeOptions) Complete() error {
	cfg, err := o.getter.ToRESTConfig()
	if err != nil {
		return fmt.Errorf("reading the upstream from your kubeconfig: %w", err)
	}
	o.upstream = cfg
	return nil
}

// Validate checks the flags.
func (o *ServeOptions) Validate() error {
	if o.Server.Listen != "" {
		return o.validateServer()
	}
	if err := o.Server.validateUnset(); err != nil {
		return err
	}
	if o.Tenant != "" { // else the credential must name it (serve_identity.go)
		if err := translate.ValidateTenantName(o.Tenant); err != nil {
			return err
		}
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port must be between 0 and 65535, not %d", o.Port)
	}
	if o.ProfileAddress != "" {
		if err := localproxy.ValidateProfileAddress(o.ProfileAddress); err != nil {
			return fmt.Errorf("--profile-address: %w", err)
		}
	}
	return nil
}

// Run serves until ctx ends (SIGINT/SIGTERM), then shuts down gracefully.
func (o *ServeOptions) Run(ctx context.Context) error {
	if err := o.identify(ctx); err != nil { // serve_identity.go
		return err
	}
	if o.KubeconfigOut == "" {
		o.KubeconfigOut = defaultKubeconfigOut(o.Tenant)
	}
	token, err := localproxy.NewToken()
	if err != nil {
		return err
	}
	admin := false
	if !o.direct { // a tenant user's own credential carries its groups; it may not read the record
		zoo, err := tenantctl.NewClient(o.upstream)
		if err != nil {
			return err
		}
		if admin, err = zoo.IsAdmin(ctx, o.Tenant, o.User); err != nil {
			return err
		}
	}
	// With the tenant user's own credential the record is not readable
	// (direct.go), and the user reaches the upstream with that credential
	// anyway: no share is enforced.
	// The tenant's namespaces, watched rather than listed by label for
	// every namespace list and all-namespaces request. The tenant user's
	// own credential may not watch them.
	var namespaces *localproxy.NamespaceIndex
	if !o.direct {
		if namespaces, err = localproxy.WatchNamespaces(ctx, o.upstream, o.Tenant); err != nil {
			return err
		}
	}
	if err := o.keepNamespacesSetUp(ctx, namespaces); err != nil { // serve_setup.go
		return err
	}
	p, err := localproxy.New(localproxy.Config{Upstream: o.upstream, NewPolicyClient: tenantctl.PolicyClientFor, Tenant: o.Tenant, User: o.User, Groups: o.Groups, Admin: admin,
		Direct: o.direct, Token: token, FairShare: !o.direct, Namespaces: namespaces})
	if err != nil {
		return err
	}
	if o.ProfileAddress != "" {
		prof, err := localproxy.StartProfileServer(o.ProfileAddress)
		if err != nil {
			return fmt.Errorf("--profile-address: %w", err)
		}
		defer prof.Shutdown(context.Background()) //nolint:errcheck // exiting anyway
		fmt.Fprintf(o.Out, "Serving profiles on %s\n", prof.URL())
	}
	srv := localproxy.NewServer(p, "127.0.0.1:"+strconv.Itoa(o.Port))
	if err := srv.Start(); err != nil {
		return err
	}
	if err := localproxy.WriteKubeconfig(o.KubeconfigOut, srv.URL(), srv.CACertPEM(), o.Tenant, token); err != nil {
		_ = srv.Shutdown(context.Background())
		return err
	}
	as := o.User
	if o.direct {
		as += " with its own credential (no impersonation)"
	}
	fmt.Fprintf(o.Out, "Serving tenant %s as %s on %s; use it with: export KUBECONFIG=%s; kubectl --context %s get ns\n",
		o.Tenant, as, srv.Addr(), o.KubeconfigOut, localproxy.ContextName(o.Tenant))
	select {
	case err := <-srv.Done():
		return err
	case <-ctx.Done():
	}
	klog.V(1).InfoS("shutting down", "tenant", o.Tenant)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), localproxy.DefaultShutdownGrace)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
