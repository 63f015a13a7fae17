package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TenantSleepOptions holds the flags of `kubectl zoo tenant sleep` and
// `kubectl zoo tenant wake`.
type TenantSleepOptions struct {
	Name string
	// Wake is true for `tenant wake`.
	Wake bool
	// IncludePods deletes bare pods and unfinished Jobs (sleep only).
	IncludePods bool

	getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// NewCmdTenantSleep returns `kubectl zoo tenant sleep NAME`.
func NewCmdTenantSleep(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantSleepOptions{getter: getter, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "sleep NAME",
		Short: "Scale a tenant's workloads to 0 and suspend its CronJobs, recording them for wake",
		Long: `Put a tenant to sleep: record, in its Tenant record, the replicas of every Deployment,
StatefulSet, ReplicaSet (but those a Deployment controls) and ReplicationController
that runs pods and the suspend flag of every CronJob, then scale them to 0 and suspend
the CronJobs. HorizontalPodAutoscalers keep their settings: the HPA controller does
not scale a target whose replicas are 0. Bare pods and unfinished Jobs are reported
and left running, or deleted with --include-pods. The workloads are scaled as the user
kubectl-zoo:sleep, by impersonation, so that the tenant's own admission cannot refuse
it. See docs/sleep.md.`,
		Example:           "  kubectl zoo tenant sleep acme\n  kubectl zoo tenant sleep acme --include-pods",
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE:              o.runE,
	}
	cmd.Flags().BoolVar(&o.IncludePods, "include-pods", false, "Also delete the tenant's bare pods and unfinished Jobs")
	return cmd
}

// NewCmdTenantWake returns `kubectl zoo tenant wake NAME`.
func NewCmdTenantWake(getter genericclioptions.RESTClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TenantSleepOptions{Wake: true, getter: getter, IOStreams: streams}
	return &cobra.Command{
		Use:   "wake NAME",
		Short: "Restore the replicas and suspend flags a tenant had before sleep",
		Long: `Wake a sleeping tenant: restore every workload recorded by ` + "`tenant sleep`" + ` to the
replicas and suspend flag it had (one deleted or recreated since is left alone).
Waking an awake tenant does nothing. See docs/sleep.md.`,
		Example:           "  kubectl zoo tenant wake acme",
		Args:              exactlyOneName("tenant"),
		ValidArgsFunction: completeTenantNames(getter),
		RunE:              o.runE,
	}
}

func (o *TenantSleepOptions) runE(cmd *cobra.Command, args []string) error {
	if err := o.Complete(args); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return o.Run(cmd)
}

// Complete takes the tenant name.
func (o *TenantSleepOptions) Complete(args []string) error {
	o.Name = args[0]
	return nil
}

// Validate checks the name.
func (o *TenantSleepOptions) Validate() error { return translate.ValidateTenantName(o.Name) }

// Run sleeps or wakes the tenant and says what it did.
func (o *TenantSleepOptions) Run(cmd *cobra.Command) error {
	client, err := newTenantClient(o.getter)
	if err != nil {
		return err
	}
	if o.Wake {
		res, err := client.WakeTenant(cmd.Context(), o.Name)
		if err != nil {
			return joinedLines(err)
		}
		_, err = fmt.Fprintf(o.Out, "tenant/%s awake: %d workload(s) restored\n", o.Name, len(res.Changed))
		return err
	}
	res, err := client.SleepTenant(cmd.Context(), o.Name, tenantctl.SleepOptions{IncludePods: o.IncludePods})
	if err != nil {
		return joinedLines(err)
	}
	fmt.Fprintf(o.Out, "tenant/%s asleep: %d workload(s) scaled to 0 or suspended, %d recorded for wake\n", o.Name, len(res.Changed), res.Recorded)
	printLeft(o.Out, res)
	return nil
}

// printLeft says which bare pods and Jobs were deleted or left running.
func printLeft(w io.Writer, res tenantapi.SleepResult) {
	verb := "left running (delete them with --include-pods)"
	if res.Deleted {
		verb = "deleted"
	}
	for _, p := range res.Pods {
		fmt.Fprintf(w, "pod %s %s\n", p, verb)
	}
	for _, j := range res.Jobs {
		fmt.Fprintf(w, "job %s %s\n", j, verb)
	}
}
