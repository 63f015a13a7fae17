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
server refuses revoked ones. A certificate of the cluster's signer names a user of
its own whose one right is to impersonate the tenant user; revoking it takes that
right back, so directly upstream it can then do nothing (docs/certificates.md).`,
	}
	cmd.AddCommand(NewCmdCertIssue(getter, streams))
	cmd.AddCommand(NewCmdCertList(getter, streams))
	cmd.AddCommand(NewCmdCertRevoke(getter, streams))
	cmd.AddCommand(NewCmdCertRenew(getter, streams))
	return cmd
}
