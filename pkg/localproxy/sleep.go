package localproxy

import (
	"context"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// WakeTimeout bounds how long a request that wakes its sleeping tenant
// waits for the wake before it is answered 503.
const WakeTimeout = time.Minute

// mayRunPods reports whether a request is a write that may run pods: a
// create, update or patch of an object of a kind whose row of the kinds
// table holds a pod spec (pods and every workload kind; a PodTemplate too,
// which wakes the tenant for nothing), or of its scale.
func mayRunPods(u *translate.UpstreamRequest) bool {
	info := u.Info
	if !info.IsResourceRequest {
		return false
	}
	rule, ok := translate.LookupKind(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource})
	if !ok || !rule.HasPodSpecs() {
		return false
	}
	switch info.Verb {
	case "create", "update", "patch":
		return info.Subresource == "" || info.Subresource == "scale"
	}
	return false
}

// wakeFirst wakes the tenant, when its record says it sleeps, before a
// write that may run pods (tenantapi.PolicyClient.WakeTenant, with the proxy's
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
	pc, err := p.policyClients() // tenantpolicy.go
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, WakeTimeout)
	defer cancel()
	res, err := pc.tc.WakeTenant(ctx, p.tenant.Name())
	if err == nil {
		klog.InfoS("woke tenant", "tenant", p.tenant.Name(), "restored", len(res.Changed))
	}
	return err
}
