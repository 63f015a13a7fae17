package localproxy

import (
	"context"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// WakeTimeout bounds how long a request that wakes its sleeping tenant
// waits for the wake before it is answered 503.
const WakeTimeout = time.Minute

// runsPods are the resources ("group/resource") whose create, update or
// patch may run pods: the pods themselves and every workload kind.
var runsPods = map[string]bool{
	"/pods": true, "/replicationcontrollers": true, "apps/deployments": true, "apps/statefulsets": true,
	"apps/replicasets": true, "apps/daemonsets": true, "batch/jobs": true, "batch/cronjobs": true,
}

// mayRunPods reports whether a request is a write that may run pods: a
// create, update or patch of a pod or a workload, or of its scale.
func mayRunPods(u *translate.UpstreamRequest) bool {
	info := u.Info
	if !info.IsResourceRequest || !runsPods[info.APIGroup+"/"+info.Resource] {
		return false
	}
	switch info.Verb {
	case "create", "update", "patch":
		return info.Subresource == "" || info.Subresource == "scale"
	}
	return false
}

// wakeFirst wakes the tenant, when its record says it sleeps, before a
// write that may run pods (tenantctl.Client.WakeTenant, with the proxy's
// own identity, bounded by WakeTimeout); the write is then served as
// usual. It returns false when it answered instead (503: the wake failed).
// The record is read afresh for each such write: one the tenant made
// while asleep would be undone by the next wake. With the tenant's own
// credential (Direct) there is no platform identity to wake with: the
// write goes upstream as it would without the proxy (docs/sleep.md).
func (p *Proxy) wakeFirst(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) bool {
	if p.cfg.Direct || !mayRunPods(u) {
		return true
	}
	rec, err := p.tenantRecord(r.Context()) // tenant_record.go
	if err != nil {
		klog.V(2).InfoS("cannot read the tenant's record to see whether it sleeps", "tenant", p.tenant.Name(), "err", err)
		return true
	}
	if !rec.Asleep() {
		return true
	}
	if err := p.Wake(r.Context()); err != nil {
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
			Reason: metav1.StatusReasonServiceUnavailable, Details: &metav1.StatusDetails{RetryAfterSeconds: 5},
			Message: fmt.Sprintf("tenant %s is asleep and could not be woken: %v", p.tenant.Name(), err)})
		return false
	}
	return true
}

// Wake wakes the proxy's tenant with the proxy's own identity, waiting at
// most WakeTimeout.
func (p *Proxy) Wake(ctx context.Context) error {
	tc, _, err := p.policyClients() // tenantpolicy.go
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, WakeTimeout)
	defer cancel()
	res, err := tc.WakeTenant(ctx, p.tenant.Name())
	if err == nil {
		klog.InfoS("woke tenant", "tenant", p.tenant.Name(), "restored", len(res.Changed))
	}
	return err
}
