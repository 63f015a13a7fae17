package localproxy

import (
	"bytes"
	"context"
	"net/http"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantprop"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// propagationHooks is the propagation work around a write of a Secret or
// ConfigMap (withPolicies): when the object is marked for propagation
// after the write, or was before it, the tenant's copies are reconciled
// once the upstream accepted the write, before the tenant gets the answer.
// It costs an unmarked create nothing, an update or delete one GET before
// the write (was it marked?), a successful patch one GET after it (is it
// marked now?). An unmarking patch that does not name the marker (a JSON
// patch replacing all labels, an apply that drops it) is left to the next
// reconcile of the tenant. It returns nil when there is nothing to do after
// the write.
func (p *Proxy) propagationHooks(r *http.Request, u *translate.UpstreamRequest) func(context.Context) {
	info := u.Info
	pc, err := p.policyClients()
	if err != nil {
		klog.ErrorS(err, "propagation", "tenant", p.tenant.Name())
		return nil
	}
	ns, err := p.tenant.UpstreamNamespace(info.Namespace)
	if err != nil || info.Namespace == "" {
		return nil
	}
	reconcile := func(ctx context.Context) {
		unlock := LockTenant(p.tenant.Name())
		defer unlock()
		if _, err := pc.prop.Reconcile(ctx, p.tenant); err != nil {
			klog.ErrorS(err, "propagating into the tenant's namespaces", "tenant", p.tenant.Name())
		}
	}
	marked := func(ctx context.Context) bool {
		m, err := pc.prop.IsMarked(ctx, info.Resource, ns, info.Name)
		if err != nil {
			klog.ErrorS(err, "propagation", "tenant", p.tenant.Name())
		}
		return m
	}
	switch info.Verb {
	case "create":
		if bodyMarked(u.Header.Get("Content-Type"), u.Body) {
			return reconcile
		}
		return nil
	case "deletecollection":
		return reconcile
	}
	if info.Verb == "patch" {
		// A patch that names the marker may unmark; any other is judged
		// by what it left.
		mentions := bytes.Contains(u.Body, []byte(markerGroup))
		return func(ctx context.Context) {
			if mentions || marked(ctx) {
				reconcile(ctx)
			}
		}
	}
	was := marked(r.Context()) // update, delete
	return func(ctx context.Context) {
		if was || (info.Verb == "update" && bodyMarked(u.Header.Get("Content-Type"), u.Body)) {
			reconcile(ctx)
		}
	}
}

// markerGroup is the prefix of the propagation keys, as a patch names them
// (also escaped as a JSON pointer: "propagate.kubectl-zoo.io~1...").
const markerGroup = "propagate.kubectl-zoo.io"

// bodyMarked reports whether a translated object carries the propagation
// marker.
func bodyMarked(contentType string, body []byte) bool {
	if meta, ok := translate.ProtobufObjectMeta(contentType, body); ok { // without decoding the object
		_, marked := meta.Labels[tenantprop.MarkerLabel]
		return marked
	}
	obj, err := translate.DecodeBody(contentType, body)
	if err != nil {
		return false
	}
	meta, _ := obj["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	_, ok := labels[tenantprop.MarkerLabel]
	return ok
}
