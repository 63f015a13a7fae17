package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/zooserver"
)

// ServerFlags are the flags of `kubectl zoo serve --listen`, the
// multi-tenant server.
type ServerFlags struct {
	Listen        string
	TLSCertFile   string
	TLSKeyFile    string
	ClientCAFile  string
	AuditLog      string
	MaxProxies    int
	ShutdownGrace time.Duration
	// AdvertiseAddress and AdvertiseCAFile: where tenant pods reach the
	// server, and the CA bundle that verifies it there.
	AdvertiseAddress string
	AdvertiseCAFile  string
}

// AddFlags adds the server's flags to cmd.
func (f *ServerFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Listen, "listen", "", "Serve every tenant on this address (\":8443\"): the multi-tenant server; the tenant comes from each caller's credential")
	cmd.Flags().StringVar(&f.TLSCertFile, "tls-cert-file", "", "With --listen: the serving certificate (PEM)")
	cmd.Flags().StringVar(&f.TLSKeyFile, "tls-private-key-file", "", "With --listen: the serving certificate's private key (PEM)")
	cmd.Flags().StringVar(&f.ClientCAFile, "client-ca-file", "", "With --listen: a CA bundle (PEM) of tenant client certificates, accepted besides the cluster's client CA")
	cmd.Flags().StringVar(&f.AuditLog, "audit-log", "-", `With --listen: where to append the audit log, one JSON line per mutating request ("-": standard output, "": none)`)
	cmd.Flags().IntVar(&f.MaxProxies, "max-identities", zooserver.DefaultMaxProxies, "With --listen: how many identities' proxies to keep per tenant")
	cmd.Flags().DurationVar(&f.ShutdownGrace, "shutdown-grace", localproxy.DefaultShutdownGrace, "With --listen: how long requests in flight may finish after SIGTERM")
	cmd.Flags().StringVar(&f.AdvertiseAddress, "advertise-address", "", "With --listen: HOST:PORT where tenant pods reach the server (its Service); pods and pod templates written through it then get the tenant view's in-cluster API access (KUBERNETES_SERVICE_HOST/PORT, CA bundle, namespace file)")
	cmd.Flags().StringVar(&f.AdvertiseCAFile, "advertise-ca-file", "", "With --advertise-address: the CA bundle (PEM) that verifies the server at that address, given to tenant pods as ca.crt; followed live")
}

// validateUnset refuses server flags without --listen.
func (f *ServerFlags) validateUnset() error {
	if f.TLSCertFile != "" || f.TLSKeyFile != "" || f.ClientCAFile != "" || f.AdvertiseAddress != "" || f.AdvertiseCAFile != "" {
		return errors.New("--tls-cert-file, --tls-private-key-file, --client-ca-file, --advertise-address and --advertise-ca-file need --listen")
	}
	return nil
}

// validateServer checks the flags of the multi-tenant server: the tenant and
// user come from each caller's credential, never from a flag.
func (o *ServeOptions) validateServer() error {
	f := o.Server
	if o.Tenant != "" || (o.User != "" && o.User != translate.DefaultAdminUser) || len(o.Groups) > 0 || o.Port != 0 || o.KubeconfigOut != "" {
		return errors.New("--listen serves every tenant, each caller as its credential says: --tenant, --user, --group, --port and --kubeconfig-out do not apply")
	}
	if f.TLSCertFile == "" || f.TLSKeyFile == "" {
		return errors.New("--listen needs --tls-cert-file and --tls-private-key-file")
	}
	if f.MaxProxies < 1 {
		return fmt.Errorf("--max-identities must be at least 1, not %d", f.MaxProxies)
	}
	if f.ShutdownGrace < 0 {
		return fmt.Errorf("--shutdown-grace must not be negative")
	}
	if (f.AdvertiseAddress == "") != (f.AdvertiseCAFile == "") {
		return errors.New("--advertise-address and --advertise-ca-file go together: tenant pods need both the server's address and the CA that verifies it")
	}
	if f.AdvertiseAddress != "" {
		if _, _, err := localproxy.SplitAdvertiseAddress(f.AdvertiseAddress); err != nil {
			return fmt.Errorf("--advertise-address: %w", err)
		}
	}
	if o.ProfileAddress != "" {
		if err := localproxy.ValidateProfileAddress(o.ProfileAddress); err != nil {
			return fmt.Errorf("--profile-address: %w", err)
		}
	}
	return nil
}

// RunServer serves every tenant until ctx ends (SIGINT/SIGTERM), then
// drains.
func (o *ServeOptions) RunServer(ctx context.Context) error {
	f := o.Server
	var audit io.Writer
	switch f.AuditLog {
	case "":
	case "-":
		audit = o.Out
	default:
		file, err := os.OpenFile(f.AuditLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("--audit-log: %w", err)
		}
		defer file.Close()
		audit = file
	}
	srv, err := zooserver.New(zooserver.Config{Upstream: o.upstream, Listen: f.Listen, CertFile: f.TLSCertFile, KeyFile: f.TLSKeyFile,
		ClientCAFile: f.ClientCAFile, Audit: audit, MaxProxies: f.MaxProxies,
		AdvertiseAddress: f.AdvertiseAddress, AdvertiseCAFile: f.AdvertiseCAFile})
	if err != nil {
		return err
	}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	if o.ProfileAddress != "" {
		prof, err := localproxy.StartProfileServer(o.ProfileAddress)
		if err != nil {
			return fmt.Errorf("--profile-address: %w", err)
		}
		defer prof.Shutdown(context.Background()) //nolint:errcheck // exiting anyway
		fmt.Fprintf(o.ErrOut, "Serving profiles on %s\n", prof.URL())
	}
	fmt.Fprintf(o.ErrOut, "Serving every tenant on https://%s\n", srv.Addr())
	select {
	case err := <-srv.Done():
		return err
	case <-ctx.Done():
	}
	klog.InfoS("shutting down", "grace", f.ShutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), f.ShutdownGrace)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
