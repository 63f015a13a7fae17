package tenantctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// SleepFieldManager is the field manager of sleep and wake's writes.
const SleepFieldManager = "kubectl-zoo-sleep"

// SleepOptions are the options of SleepTenant.
type SleepOptions struct {
	// IncludePods also deletes the tenant's bare pods and unfinished Jobs.
	IncludePods bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// By is recorded as SleepState.By.
	By string
	// NoPods neither lists nor deletes bare pods and Jobs (the server's
	// sleep: its ServiceAccount may not list pods).
	NoPods bool
}

// SleepTenant puts a tenant to sleep: it records, in the tenant's record,
// the replicas of every Deployment, StatefulSet, ReplicaSet (but those a
// Deployment controls) and ReplicationController that runs pods and the
// suspend flag of every CronJob, then scales them to 0 through their scale
// subresource and suspends the CronJobs. HorizontalPodAutoscalers are left
// as they are: the HPA controller does not scale a target whose replicas
// are 0. Running it again, or while a wake runs, converges.
func (c *Client) SleepTenant(ctx context.Context, name string, opts SleepOptions) (tenantapi.SleepResult, error) {
	now := metav1.Now()
	if opts.Now != nil {
		now = metav1.NewTime(opts.Now())
	}
	res, err := c.changeSleep(ctx, name, true, func(s *tenantapi.SleepState, inv inventory) tenantapi.SleepState {
		return s.SleepWith(inv.Workloads, now, opts.By)
	})
	if err != nil {
		return res, err
	}
	if opts.NoPods {
		return res, nil
	}
	return res, c.pods(ctx, name, opts.IncludePods, &res)
}

// WakeTenant wakes a tenant: it restores every workload the record holds to
// the replicas and suspend flag it had before sleep (one recreated since,
// by a different UID, is left alone). Waking an awake tenant does nothing.
func (c *Client) WakeTenant(ctx context.Context, name string) (tenantapi.SleepResult, error) {
	if rec, err := c.readRecord(ctx, name); err == nil && !wakeNeeded(rec) {
		return tenantapi.SleepResult{}, nil // the common case of a request that finds its tenant woken: one GET
	}
	now := metav1.Now()
	return c.changeSleep(ctx, name, false, func(s *tenantapi.SleepState, _ inventory) tenantapi.SleepState {
		if s == nil {
			return tenantapi.SleepState{State: tenantapi.SleepStateAwake, Converged: true, Since: now}
		}
		if s.State == tenantapi.SleepStateAwake {
			return *s
		}
		return s.Wake(now)
	})
}

// wakeNeeded reports whether a record is not yet awake and converged.
func wakeNeeded(rec *tenantapi.Tenant) bool {
	s := rec.Status.Sleep
	return s != nil && !(s.State == tenantapi.SleepStateAwake && s.Converged)
}

// SleepLockName is the name of tenant t's sleep Lease in kube-system.
func SleepLockName(t translate.Tenant) string { return "zoo-sleep-" + t.Name() }

// changeSleep stores next(current state, live inventory: taken only
// withInventory) in the record with the resourceVersion it read, then
// brings the workloads to it and marks the record converged (settle). It
// holds the tenant's sleep Lease throughout: one writer at a time (a user,
// the server's replicas) scales the tenant's workloads, so that none
// scales them to a state another has since replaced.
func (c *Client) changeSleep(ctx context.Context, name string, withInventory bool, next func(*tenantapi.SleepState, inventory) tenantapi.SleepState) (tenantapi.SleepResult, error) {
	t, err := translate.NewTenant(name)
	if err != nil {
		return tenantapi.SleepResult{}, err
	}
	if err := c.CheckInstalled(ctx); err != nil {
		return tenantapi.SleepResult{}, err
	}
	ctx, unlock, err := c.policy().LockLease(ctx, t, SleepLockName(t), "sleep")
	if err != nil {
		return tenantapi.SleepResult{}, err
	}
	defer unlock()
	sc, err := c.asSleeper()
	if err != nil {
		return tenantapi.SleepResult{}, err
	}
	var rec *tenantapi.Tenant
	err = retry.RetryOnConflict(policyctl.ConflictRetry, func() error {
		if rec, err = sc.readRecord(ctx, name); err != nil {
			return err
		}
		var inv inventory
		if withInventory {
			if inv, err = sc.takeInventory(ctx, t, false); err != nil {
				return err
			}
		}
		state := next(rec.Status.Sleep, inv)
		if rec.Status.Sleep != nil && equalState(*rec.Status.Sleep, state) {
			return nil
		}
		rec.Status.Sleep = &state
		rec, err = sc.storeSleep(ctx, rec)
		return err
	})
	if err != nil {
		return tenantapi.SleepResult{}, err
	}
	return sc.settle(ctx, t, rec)
}

// settle brings the workloads to rec's sleep state and marks it converged
// with rec's resourceVersion. When another writer changed the record
// meanwhile, it brings the workloads to that writer's state instead and
// tries again: the last state written is the one that holds.
func (c *Client) settle(ctx context.Context, t translate.Tenant, rec *tenantapi.Tenant) (tenantapi.SleepResult, error) {
	var res tenantapi.SleepResult
	for {
		changed, err := c.converge(ctx, t, *rec.Status.Sleep)
		res.Changed = append(res.Changed, changed...)
		res.Recorded = len(rec.Status.Sleep.Workloads)
		if err != nil || rec.Status.Sleep.Converged {
			return res, err
		}
		rec.Status.Sleep.Converged = true
		if _, err := c.storeSleep(ctx, rec); err == nil || !apierrors.IsConflict(err) {
			return res, err
		}
		klog.V(2).InfoS("tenant record changed while converging; converging to its state", "tenant", t.Name())
		if rec, err = c.readRecord(ctx, t.Name()); err != nil {
			return res, err
		}
		if rec.Status.Sleep == nil {
			return res, fmt.Errorf("tenant %q: its sleep state was removed", t.Name())
		}
	}
}

// equalState reports whether storing b over a would change nothing but
// Converged and Since: then a converged a stays as it is.
func equalState(a, b tenantapi.SleepState) bool {
	if a.State != b.State || a.By != b.By || len(a.Workloads) != len(b.Workloads) {
		return false
	}
	for i := range a.Workloads {
		if a.Workloads[i].Key() != b.Workloads[i].Key() || a.Workloads[i].UID != b.Workloads[i].UID ||
			a.Workloads[i].Patch() != b.Workloads[i].Patch() {
			return false
		}
	}
	return true
}

// readRecord reads a tenant's record, refusing one being deleted.
func (c *Client) readRecord(ctx context.Context, name string) (*tenantapi.Tenant, error) {
	rec, err := c.ReadTenant(ctx, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("tenant %q does not exist", name)
	case err != nil:
		return nil, fmt.Errorf("read tenant %q: %w", name, err)
	case rec.DeletionTimestamp != nil:
		return nil, fmt.Errorf("tenant %q is being deleted", name)
	}
	return rec, nil
}

// storeSleep updates the record's status with its resourceVersion (a
// Conflict is returned as is, for the caller to retry).
func (c *Client) storeSleep(ctx context.Context, rec *tenantapi.Tenant) (*tenantapi.Tenant, error) {
	u, err := rec.ToUnstructured()
	if err != nil {
		return nil, err
	}
	out, err := c.Dynamic.Resource(tenantapi.TenantGVR).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: SleepFieldManager})
	if err != nil {
		if apierrors.IsConflict(err) {
			return nil, err
		}
		return nil, fmt.Errorf("record the sleep state of tenant %q: %w", rec.Name, err)
	}
	return tenantapi.TenantFromUnstructured(out)
}

// converge brings every recorded workload that still exists with its UID
// to what state asks, and returns those it changed.
func (c *Client) converge(ctx context.Context, t translate.Tenant, state tenantapi.SleepState) ([]string, error) {
	inv, err := c.takeInventory(ctx, t, false)
	if err != nil {
		return nil, err
	}
	live := inv.byKey()
	var changed []string
	var errs []error
	for _, w := range state.Workloads {
		cur, ok := live[w.Key()]
		want := w.Target(state.State)
		if !ok || cur.UID != w.UID || want.Matches(cur) {
			continue
		}
		if err := c.setWorkload(ctx, want); err != nil {
			errs = append(errs, err)
			continue
		}
		changed = append(changed, w.Key())
	}
	return changed, errors.Join(errs...)
}

// setWorkload sets a workload's replicas (through its scale subresource)
// or a CronJob's suspend flag.
func (c *Client) setWorkload(ctx context.Context, w tenantapi.SleptWorkload) error {
	var sub []string
	if w.Replicas != nil {
		sub = []string{"scale"}
	}
	_, err := c.Dynamic.Resource(sleepResources[w.Resource].gvr).Namespace(w.Namespace).Patch(ctx, w.Name, types.MergePatchType,
		[]byte(w.Patch()), metav1.PatchOptions{FieldManager: SleepFieldManager}, sub...)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set %s %s/%s to %s: %w", w.Resource, w.Namespace, w.Name, strings.TrimPrefix(w.Patch(), `{"spec":`), err)
	}
	return nil
}

// pods reports the tenant's bare pods and unfinished Jobs in res, and
// deletes them when asked.
func (c *Client) pods(ctx context.Context, name string, del bool, res *tenantapi.SleepResult) error {
	t, _ := translate.NewTenant(name)
	inv, err := c.takeInventory(ctx, t, true)
	if err != nil {
		return err
	}
	res.Pods, res.Jobs = inv.Pods, inv.Jobs
	if !del {
		return nil
	}
	res.Deleted = true
	background := metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
	var errs []error
	for _, del := range []struct {
		gvr   schema.GroupVersionResource
		names []string
	}{{podsGVR, inv.Pods}, {jobsGVR, inv.Jobs}} {
		for _, nsName := range del.names {
			ns, n, _ := strings.Cut(nsName, "/")
			err := c.Dynamic.Resource(del.gvr).Namespace(ns).Delete(ctx, n, background)
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete %s %s: %w", del.gvr.Resource, nsName, err))
			}
		}
	}
	return errors.Join(errs...)
}

// asSleeper returns a copy of c whose dynamic client impersonates
// translate.SleepUser (its typed client, for namespaces and the Lease,
// stays c's).
func (c *Client) asSleeper() (*Client, error) {
	if c.Config == nil {
		return nil, fmt.Errorf("no REST config to impersonate %s with", translate.SleepUser)
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: translate.SleepUser}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("a client as %s: %w", translate.SleepUser, err)
	}
	// A copy of the shared client: c's own (and every client that embeds
	// the same upstream.Client) keeps acting as the administrator.
	up := *c.Client
	up.Dynamic = dyn
	return &Client{Client: &up}, nil
}
