package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// CertIssueOptions holds the flags of `kubectl zoo cert issue`.
type CertIssueOptions struct {
	certs.Request
	// KubeconfigOut is the file the kubeconfig is written to.
	KubeconfigOut string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCertIssueOptions returns CertIssueOptions with the defaults.
func NewCertIssueOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *CertIssueOptions {
	return &CertIssueOptions{Request: certs.Request{TTL: certs.DefaultTTL, Signer: certs.SignerKubernetes}, getter: getter, IOStreams: streams}
}

// NewCmdCertIssue returns `kubectl zoo cert issue`.
func NewCmdCertIssue(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewCertIssueOptions(getter, streams)
	cmd := &cobra.Command{
		Use:   "issue --tenant T --user U",
		Short: "Issue a client certificate for a tenant user and write its kubeconfig",
		Long: `Make a key on this machine, have a certificate for zoo:<tenant>:<user> (groups
zoo:tenant:<tenant> and zoo:<tenant>:<group>) signed, record it in the Tenant record
and write a kubeconfig (0600) for it: for the zoo server when one is installed, else
for the cluster's API server, usable as kubectl zoo serve's upstream credential.

--signer kubernetes (default) uses the CSR API and approves the request when you may;
--signer zoo signs with the zoo CA, whose key only those who may read the Secret
zoo-system/zoo-client-ca have (cluster administrators).`,
		Example: `  kubectl zoo cert issue --tenant acme --user alice --group dev --kubeconfig-out alice.kubeconfig
  kubectl zoo cert issue --tenant acme --user ci --signer zoo --ttl 720h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	o.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("tenant", completeTenantNames(getter))
	return cmd
}

// AddFlags registers the flags shared by issue and renew.
func (o *CertIssueOptions) AddFlags(cmd *cobra.Command) {
	if cmd.Name() == "issue" {
		cmd.Flags().StringVar(&o.Tenant, "tenant", "", "The tenant")
		cmd.Flags().StringVar(&o.User, "user", "", "The tenant-local user (the certificate's CN is zoo:<tenant>:<user>)")
		cmd.Flags().StringArrayVar(&o.Groups, "group", nil, "A tenant-local group (repeat for more)")
		cmd.Flags().StringVar(&o.Signer, "signer", o.Signer, `"kubernetes" (the cluster's CSR API) or "zoo" (the zoo CA)`)
	}
	cmd.Flags().DurationVar(&o.TTL, "ttl", o.TTL, "The certificate's lifetime (10m to 8760h)")
	cmd.Flags().StringVar(&o.KubeconfigOut, "kubeconfig-out", "", "Where to write the kubeconfig (default zoo-<tenant>-<user>.kubeconfig)")
	cmd.Flags().StringVar(&o.ServerURL, "server-url", "", "The zoo server's URL in the kubeconfig (default its Service's, "+"https://zoo-server.zoo-system.svc)")
	cmd.Flags().DurationVar(&o.ApprovalTimeout, "approval-timeout", 0,
		"With --signer kubernetes, when you may not approve the CSR: how long to wait for someone who may (0: fail at once)")
}

// Complete fills the default kubeconfig path.
func (o *CertIssueOptions) Complete() error {
	if o.KubeconfigOut == "" && o.Tenant != "" && o.User != "" {
		o.KubeconfigOut = "zoo-" + o.Tenant + "-" + o.User + ".kubeconfig"
	}
	return nil
}

// Validate checks the request before the cluster is asked anything.
func (o *CertIssueOptions) Validate() error {
	if o.Tenant == "" {
		return fmt.Errorf("--tenant is required")
	}
	return o.Request.Validate()
}

// Run issues the certificate and writes its kubeconfig.
func (o *CertIssueOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	ep, err := certs.ResolveEndpoint(ctx, users.New(client.Client).Certs(), o.Signer, o.ServerURL)
	if err != nil {
		return err
	}
	o.Progress = func(format string, args ...any) { fmt.Fprintf(o.ErrOut, format+"\n", args...) }
	issued, err := certs.Issue(ctx, users.New(client.Client).Certs(), o.Request)
	if err != nil {
		return err
	}
	if err := certs.WriteKubeconfig(certs.Kubeconfig(issued, ep), o.KubeconfigOut); err != nil {
		return err
	}
	return o.report(issued, ep)
}

func (o *CertIssueOptions) report(issued *certs.Issued, ep certs.Endpoint) error {
	r := issued.Record
	groups := strings.Join(r.Groups, ",")
	if groups == "" {
		groups = "<none>"
	}
	where := "the zoo server " + ep.Server
	if !ep.ZooServer {
		where = "the cluster's API server " + ep.Server + " (use it with kubectl zoo serve --kubeconfig)"
	}
	fmt.Fprintf(o.Out, "certificate %s for user %s of tenant %s (groups %s), signer %s, valid until %s\n",
		r.Serial, r.User, issued.Tenant, groups, r.Signer, r.NotAfter.Format(time.RFC3339))
	fmt.Fprintf(o.Out, "kubeconfig for %s written to %s\n", where, o.KubeconfigOut)
	if r.Signer == certs.SignerKubernetes {
		fmt.Fprintln(o.Out, "note: the certificate acts upstream by impersonating the tenant user (the kubeconfig says so); `kubectl zoo cert revoke` takes that right back")
	}
	return nil
}
