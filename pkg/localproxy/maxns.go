package localproxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// liftTimeout bounds the wait for the upstream's authorizer to see a lifted
// namespace limit (a deleted RoleBinding) before a create is forwarded.
const liftTimeout = 10 * time.Second

// namespaceHooks is the policy work around a namespace write, under the
// tenant's lock (withPolicies). A create — also a server-side apply patch
// of a namespace that does not exist — is counted first: at its limit the
// tenant gets a 403 naming the limit and nothing is forwarded (ok false).
// After a successful create or delete the upstream's mark of the limit is
// reconciled (tenantapi.PolicyClient.ReconcileNamespaceLimit), and after a create,
// update or patch the tenant's propagated copies (a new namespace gets
// them, a relabeled one gains or loses them).
func (p *Proxy) namespaceHooks(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) (after func(context.Context), ok bool) {
	pc, err := p.policyClients()
	if err != nil {
		writeStatus(w, &metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: err.Error()})
		return nil, false
	}
	ctx := r.Context()
	name, creates := u.Info.Name, u.Info.Verb == "create"
	if creates {
		name, _ = p.tenant.TenantNamespace(bodyName(u.Header.Get("Content-Type"), u.Body))
	} else if u.Info.Verb == "patch" {
		upstream, _ := p.tenant.UpstreamNamespace(name)
		_, err := pc.kube.CoreV1().Namespaces().Get(ctx, upstream, metav1.GetOptions{})
		creates = apierrors.IsNotFound(err)
	}
	if creates {
		if st := p.admitNamespace(ctx, pc.tc, name); st != nil {
			writeStatus(w, st)
			return nil, false
		}
	}
	return func(ctx context.Context) {
		if creates || u.Info.Verb == "delete" || u.Info.Verb == "deletecollection" {
			if err := pc.tc.ReconcileNamespaceLimit(ctx, p.tenant.Name()); err != nil {
				klog.ErrorS(err, "reconciling the namespace limit", "tenant", p.tenant.Name())
			}
		}
		if u.Info.Verb != "delete" && u.Info.Verb != "deletecollection" {
			if _, err := pc.prop.Reconcile(ctx, p.tenant); err != nil {
				klog.ErrorS(err, "propagating into the tenant's namespaces", "tenant", p.tenant.Name())
			}
		}
	}, true
}

// admitNamespace counts the tenant's namespaces before a create: nil lets
// the create through (after lifting a stale mark of the limit upstream and
// waiting until the authorizer no longer sees it), else the refusal.
func (p *Proxy) admitNamespace(ctx context.Context, tc tenantapi.PolicyClient, name string) *metav1.Status {
	n, err := tc.CountNamespaces(ctx, p.tenant.Name())
	if err != nil {
		return &metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("counting the namespaces of tenant %s: %v", p.tenant, err)}
	}
	lifted, err := tc.SetNamespaceLimitReached(ctx, p.tenant.Name(), n)
	if err != nil {
		klog.ErrorS(err, "marking the namespace limit", "tenant", p.tenant.Name())
	}
	if n.Reached() {
		st := apierrors.NewForbidden(namespacesResource, name,
			errors.New(tenantapi.NamespaceLimitError(p.tenant.Name(), *n.Limit))).ErrStatus
		return &st
	}
	if lifted {
		if err := tc.WaitNamespaceLimitLifted(ctx, p.tenant.Name(), liftTimeout); err != nil {
			klog.ErrorS(err, "lifting the namespace limit", "tenant", p.tenant.Name())
		}
	}
	return nil
}
