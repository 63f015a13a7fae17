package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PolicySetOptions holds the flags of `kubectl zoo policy set`.
type PolicySetOptions struct {
	Tenant string
	// Change has a field for each flag given, and only those.
	Change policy.Change

	maxNamespaces, qps, burst, maxInflight                                                                        int32
	quota, limitRange, podSecurity, networkIsolation, priorityClasses, externalNames, volumeSources, ingressHosts string

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdPolicySet returns `kubectl zoo policy set TENANT [flags]`.
func NewCmdPolicySet(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PolicySetOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "set TENANT [flags]",
		Short: "Change a tenant's policy; only the flags given change",
		Long: `Change a tenant's policy: only the flags given change, and the empty value of a flag
clears it (--quota '' removes the quota, --priority-classes '' allows no class,
--max-namespaces 0 and --qps 0 remove the bound, --pod-security '' and
--network-isolation '' go back to the defaults baseline and tenant).

The new policy is stored in the tenant's record and brought into force before the
command returns: every namespace of the tenant is relabeled with the Pod Security
level, and the PriorityClasses are granted. See docs/policies.md.`,
		Example: `  kubectl zoo policy set acme --pod-security restricted
  kubectl zoo policy set acme --priority-classes high,batch-high
  kubectl zoo policy set acme --quota requests.cpu=4,limits.memory=8Gi,pods=50 --max-namespaces 10
  kubectl zoo policy set acme --qps 50 --burst 100 --max-inflight 20
  kubectl zoo policy set acme --quota ''`,
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	f := cmd.Flags()
	f.Int32Var(&o.maxNamespaces, "max-namespaces", 0, "The most namespaces the tenant may have (0: no bound)")
	f.StringVar(&o.quota, "quota", "", "Tenant-wide quota, the sum over all its namespaces: NAME=QUANTITY,... in ResourceQuota names ('' clears)")
	f.StringVar(&o.limitRange, "limit-range", "", "Container LimitRange of every tenant namespace: {default,default-request,max,min}-RESOURCE=QUANTITY,... ('' clears)")
	f.StringVar(&o.podSecurity, "pod-security", "", "Pod Security level of every tenant namespace: "+strings.Join(translate.PodSecurityLevels, "|")+" ('' is baseline)")
	f.StringVar(&o.networkIsolation, "network-isolation", "", "tenant: its pods reach only its own namespaces and cluster DNS; none ('' is tenant)")
	f.StringVar(&o.priorityClasses, "priority-classes", "", "Cluster PriorityClasses of positive value the tenant's pods may use, comma-separated ('' allows none)")
	f.StringVar(&o.externalNames, "external-names", "", "DNS names outside the cluster the tenant's ExternalName Services may name, comma-separated; *.example.com is one label in front ('' allows none)")
	f.StringVar(&o.volumeSources, "volume-sources", "", "Volume sources naming storage outside the cluster the tenant's pods and PersistentVolumes may use, comma-separated: "+
		strings.Join(translate.ExternalVolumeSources(), ",")+" ('' allows none)")
	f.StringVar(&o.ingressHosts, "ingress-hosts", "", "Host names the tenant's Ingresses may name, comma-separated; *.example.com is one label in front, * every host and rules without one ('' allows none)")
	f.Int32Var(&o.qps, "qps", 0, "Requests per second of the tenant through the proxy and the server (0: no limit)")
	f.Int32Var(&o.burst, "burst", 0, "Token bucket size, at least --qps (default: the qps)")
	f.Int32Var(&o.maxInflight, "max-inflight", 0, "Requests of the tenant served at once, long-running ones not counted (0: no limit)")
	f.String("sleep-after", "", "Put the tenant to sleep after this long without a request from any of its identities through the server, e.g. 30m ('' or 0: never; see docs/sleep.md)")
	_ = cmd.RegisterFlagCompletionFunc("pod-security", cobra.FixedCompletions(translate.PodSecurityLevels, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("network-isolation", cobra.FixedCompletions([]string{policy.NetworkIsolationTenant, policy.NetworkIsolationNone}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete takes the tenant name and puts each flag given into Change.
func (o *PolicySetOptions) Complete(cmd *cobra.Command, args []string) error {
	o.Tenant = args[0]
	changed := cmd.Flags().Changed
	for name, dst := range map[string]**string{
		"quota": &o.Change.Quota, "limit-range": &o.Change.LimitRange, "pod-security": &o.Change.PodSecurity,
		"network-isolation": &o.Change.NetworkIsolation, "priority-classes": &o.Change.PriorityClasses,
		"external-names": &o.Change.ExternalNames, "volume-sources": &o.Change.VolumeSources, "ingress-hosts": &o.Change.IngressHosts,
		"sleep-after": &o.Change.SleepAfter,
	} {
		if changed(name) {
			v, _ := cmd.Flags().GetString(name)
			*dst = &v
		}
	}
	for name, dst := range map[string]**int32{
		"max-namespaces": &o.Change.MaxNamespaces, "qps": &o.Change.QPS, "burst": &o.Change.Burst, "max-inflight": &o.Change.MaxInflight,
	} {
		if changed(name) {
			v, _ := cmd.Flags().GetInt32(name)
			*dst = &v
		}
	}
	return nil
}

// Validate checks the tenant name and every flag before anything is sent.
func (o *PolicySetOptions) Validate() error {
	if _, err := translate.NewTenant(o.Tenant); err != nil {
		return err
	}
	if o.Change == (policy.Change{}) {
		return errors.New("no policy flag given: nothing to change (see kubectl zoo policy set --help)")
	}
	for name, v := range map[string]*int32{"max-namespaces": o.Change.MaxNamespaces, "qps": o.Change.QPS, "burst": o.Change.Burst, "max-inflight": o.Change.MaxInflight} {
		if v != nil && *v < 0 {
			return fmt.Errorf("--%s must not be negative, not %d", name, *v)
		}
	}
	_, err := o.Change.Apply(policy.Policy{})
	return joinedLines(err)
}

// Run stores the changed policy and brings it into force.
func (o *PolicySetOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	if _, err := client.SetTenantPolicy(cmd.Context(), o.Tenant, o.Change); err != nil {
		return joinedLines(err)
	}
	_, err = fmt.Fprintf(o.Out, "tenant/%s policy set\n", o.Tenant)
	return err
}

// joinedLines joins the lines of an error (errors.Join gives one per error).
func joinedLines(err error) error {
	if err == nil || !strings.Contains(err.Error(), "\n") {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
}
