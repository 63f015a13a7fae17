package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TenantCreateOptions holds the flags of `kubectl zoo tenant create`.
type TenantCreateOptions struct {
	Create tenantctl.CreateOptions

	getter genericclioptions.RESTClientGetter
	client *tenantctl.Client
	genericiooptions.IOStreams
}

// NewTenantCreateOptions returns TenantCreateOptions writing to streams.
func NewTenantCreateOptions(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *TenantCreateOptions {
	return &TenantCreateOptions{getter: getter, IOStreams: streams}
}

// NewCmdTenantCreate returns `kubectl zoo tenant create NAME [--admin USER]...`.
func NewCmdTenantCreate(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewTenantCreateOptions(getter, streams)
	cmd := &cobra.Command{
		Use:   "create NAME [--admin USER]...",
		Short: "Create a tenant (or bring an existing one back in line)",
		Long: fmt.Sprintf(`Create a tenant: its record, its namespaces default, kube-system, kube-public and
kube-node-lease (upstream <name>-default, ...), its copies of the standard ClusterRoles,
and the RBAC and admission binding that confine it. Running it again is safe.

A tenant name matches ^[a-z][a-z0-9]{0,%d}$; %s are reserved.`, translate.MaxTenantNameLength-1, strings.Join(translate.ReservedTenantNames(), ", ")),
		Example: `  kubectl zoo tenant create acme
  kubectl zoo tenant create acme --admin alice --admin bob`,
		Args: exactlyOneName("tenant"),
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
	cmd.Flags().StringArrayVar(&o.Create.Admins, "admin", nil, "Tenant user with full rights on everything the tenant owns (repeatable; default \"admin\")")
	cmd.Flags().StringVar(&o.Create.DisplayName, "display-name", "", "Human-readable name of the tenant")
	return cmd
}

// Complete takes the tenant name.
func (o *TenantCreateOptions) Complete(args []string) error {
	o.Create.Name = args[0]
	return nil
}

// Validate checks the name and admins before anything is sent.
func (o *TenantCreateOptions) Validate() error {
	return tenantctl.ValidateCreateOptions(&o.Create)
}

// Run creates the tenant and tells how to reach it.
func (o *TenantCreateOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	o.client = client
	res, err := client.CreateTenant(cmd.Context(), o.Create)
	if err != nil {
		return err
	}
	verb := "created"
	if !res.Created {
		verb = "configured"
	}
	fmt.Fprintf(o.Out, "tenant/%s %s\n", res.Tenant.Name, verb)
	fmt.Fprintf(o.Out, "  namespaces: %s\n", strings.Join(res.Namespaces, ", "))
	fmt.Fprintf(o.Out, "  admins:     %s\n", strings.Join(res.Tenant.Spec.Admins, ", "))
	fmt.Fprintf(o.Out, "Reach it with: kubectl zoo serve --tenant %s\n", res.Tenant.Name)
	return nil
}
