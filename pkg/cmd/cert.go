package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdCert returns `kubectl zoo cert` and its subcommands.
func NewCmdCert(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cert",
		Short: "Issue, list, revoke and renew tenant users' client certificates",
		Long: `Client certificates for tenant users (zoo:<tenant>:<user>). The key is made on this
machine and never leaves it; the certificate is signed by the cluster's signer
(CSR API, --signer kubernetes) or by the zoo CA of the zoo server (--signer zoo).
Every certificate is recorded (never its key) in its Tenant record, and the zoo
server refuses revoked ones. The Kubernetes API server itself cannot revoke a
certificate its own signer issued: used directly upstream, such a certificate
works until it expires, so keep their lifetime short (docs/certificates.md).`,
	}
	cmd.AddCommand(NewCmdCertIssue(getter, streams))
	cmd.AddCommand(NewCmdCertList(getter, streams))
	cmd.AddCommand(NewCmdCertRevoke(getter, streams))
	cmd.AddCommand(NewCmdCertRenew(getter, streams))
	return cmd
}
