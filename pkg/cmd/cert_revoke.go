package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// CertRevokeOptions holds the flags of `kubectl zoo cert revoke`.
type CertRevokeOptions struct {
	certs.Selector

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdCertRevoke returns `kubectl zoo cert revoke`.
func NewCmdCertRevoke(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CertRevokeOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "revoke SERIAL | --tenant T --user U",
		Short: "Revoke a client certificate, or every certificate of a tenant user",
		Long: `Mark certificates revoked in their Tenant record. The zoo server refuses a revoked
certificate once its replicas' watch of Tenant records has the change (docs/server.md
gives the measured bound). A certificate of the cluster's signer also loses its one
upstream right, to impersonate the tenant user, within seconds (docs/certificates.md).`,
		Example:           "  kubectl zoo cert revoke 5f3a9c...\n  kubectl zoo cert revoke --tenant acme --user alice",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeCertificates(getter, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringVar(&o.Tenant, "tenant", "", "The tenant (with --user, or to look the SERIAL up in only it)")
	cmd.Flags().StringVar(&o.User, "user", "", "Revoke every certificate of this tenant-local user")
	_ = cmd.RegisterFlagCompletionFunc("tenant", completeTenantNames(getter))
	_ = cmd.RegisterFlagCompletionFunc("user", completeCertificates(getter, true))
	return cmd
}

// Complete takes the optional SERIAL.
func (o *CertRevokeOptions) Complete(args []string) error {
	if len(args) == 1 {
		o.Serial = args[0]
	}
	return nil
}

// Validate checks that a SERIAL or --tenant and --user are given.
func (o *CertRevokeOptions) Validate() error { return o.Selector.Validate() }

// Run revokes the certificates.
func (o *CertRevokeOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	revoked, err := certs.Revoke(cmd.Context(), users.New(client.Client).Certs(), o.Selector, time.Now())
	if err != nil {
		return err
	}
	if len(revoked) == 0 {
		fmt.Fprintln(o.Out, "already revoked")
		return nil
	}
	for _, c := range revoked {
		fmt.Fprintf(o.Out, "certificate %s of user %s of tenant %s revoked\n", c.Serial, c.User, c.Tenant)
		if c.Signer == certs.SignerKubernetes {
			fmt.Fprintf(o.Out, "%s was signed by the cluster's signer: the API server still authenticates it until %s, as a user that may do nothing\n",
				c.Serial, c.NotAfter.Format(time.RFC3339))
		}
	}
	return nil
}

// CertRenewOptions holds the flags of `kubectl zoo cert renew`.
type CertRenewOptions struct {
	CertIssueOptions
	// Serial is the certificate to renew.
	Serial string
}

// NewCmdCertRenew returns `kubectl zoo cert renew`.
func NewCmdCertRenew(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CertRenewOptions{CertIssueOptions: *NewCertIssueOptions(getter, streams)}
	cmd := &cobra.Command{
		Use:   "renew SERIAL",
		Short: "Issue a new certificate for the identity of SERIAL and revoke the old one",
		Long: `Issue a new certificate (a new key, made here) for the user, groups and signer of the
recorded certificate SERIAL, write its kubeconfig, then revoke SERIAL.`,
		Example:           "  kubectl zoo cert renew 5f3a9c... --kubeconfig-out alice.kubeconfig",
		Args:              exactlyOneName("certificate serial"),
		ValidArgsFunction: completeCertificates(getter, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Serial = args[0]
			return o.Run(cmd)
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// Run finds SERIAL, issues its successor and revokes it.
func (o *CertRenewOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	old, err := certs.Find(cmd.Context(), users.New(client.Client).Certs(), o.Serial, time.Now())
	if err != nil {
		return err
	}
	o.Tenant, o.User, o.Groups, o.Signer = old.Tenant, old.User, old.Groups, old.Signer
	if err := o.Complete(); err != nil {
		return err
	}
	if err := o.CertIssueOptions.Validate(); err != nil {
		return err
	}
	if err := o.CertIssueOptions.Run(cmd); err != nil {
		return err
	}
	_, err = certs.Revoke(cmd.Context(), users.New(client.Client).Certs(), certs.Selector{Serial: old.Serial, Tenant: old.Tenant}, time.Now())
	if err != nil {
		return fmt.Errorf("the new certificate is issued, but revoking %s failed: %w", old.Serial, err)
	}
	fmt.Fprintf(o.Out, "certificate %s revoked\n", old.Serial)
	return nil
}
