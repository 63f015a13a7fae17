package policyctl

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// A policy object is applied with server-side apply, which keeps the fields
// of an existing object that the applied one does not set. So an object in
// its place that kubectl-zoo did not make (a squatter: unlabeled, made
// before the name was reserved) is deleted first, and so is a labeled one
// that carries what kubectl-zoo never writes — a quota scope (immutable, and
// one that exempts every pod) or a pod selector that selects some pods
// only, merged in before — or is being deleted (a finalizer would keep it,
// and the apply would merge into it). Each is then made anew.

// squatterWait bounds the wait for a deleted object in the way to be gone.
const squatterWait = 10 * time.Second

// notDeleted reports whether obj is not being deleted.
func notDeleted(obj metav1.Object) bool { return obj.GetDeletionTimestamp() == nil }

// soundQuota reports whether a ResourceQuota labeled as the policy's can be
// applied over: no scope or scope selector, not being deleted.
func soundQuota(rq *corev1.ResourceQuota) bool {
	return notDeleted(rq) && len(rq.Spec.Scopes) == 0 && rq.Spec.ScopeSelector == nil
}

// soundNetworkPolicy reports whether a NetworkPolicy labeled as the
// policy's can be applied over: it selects every pod, and is not being
// deleted. (Its rules are atomic lists, which the apply replaces whole.)
func soundNetworkPolicy(obj metav1.Object) bool {
	np, ok := obj.(*networkingv1.NetworkPolicy)
	if !ok {
		return notDeleted(obj)
	}
	sel := np.Spec.PodSelector
	return notDeleted(np) && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
}

// replaceSquatter removes the object of kind named PolicyObjectName in
// namespace ns, if there is one, before the policy's is applied in its
// place: its finalizers are cleared, it is deleted (that very object: a
// UID precondition), and the call returns once it is gone, or fails.
func (c *Client) replaceSquatter(ctx context.Context, kind, ns string) error {
	ops, err := c.policyObjectOps(kind, ns)
	if err != nil {
		return err
	}
	obj, err := ops.get(ctx)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the %s %s/%s in the way of the policy's: %w", kind, ns, platformobj.PolicyObjectName, err)
	}
	uid := obj.GetUID()
	if len(obj.GetFinalizers()) > 0 {
		patch := fmt.Sprintf(`{"metadata":{"uid":%q,"finalizers":null}}`, uid)
		if err := ops.patch(ctx, []byte(patch)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("clear the finalizers of the %s %s/%s in the way of the policy's: %w", kind, ns, platformobj.PolicyObjectName, err)
		}
	}
	err = ops.del(ctx, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete the %s %s/%s in the way of the policy's: %w", kind, ns, platformobj.PolicyObjectName, err)
	}
	klog.InfoS("deleted an object in the way of the policy's", "kind", kind, "namespace", ns, "name", platformobj.PolicyObjectName, "uid", uid)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, squatterWait, true, func(ctx context.Context) (bool, error) {
		cur, err := ops.get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && cur.GetUID() != uid, err
	})
	if err != nil {
		return fmt.Errorf("the %s %s/%s in the way of the policy's is not gone: %w", kind, ns, platformobj.PolicyObjectName, err)
	}
	return nil
}

// policyObjectOps are the reads and writes of the object of kind named
// PolicyObjectName in namespace ns that replaceSquatter needs.
type policyObjectOps struct {
	get   func(ctx context.Context) (metav1.Object, error)
	patch func(ctx context.Context, merge []byte) error
	del   func(ctx context.Context, opts metav1.DeleteOptions) error
}

func (c *Client) policyObjectOps(kind, ns string) (policyObjectOps, error) {
	switch kind {
	case "ResourceQuota":
		return opsOf(c.Kube.CoreV1().ResourceQuotas(ns)), nil
	case "LimitRange":
		return opsOf(c.Kube.CoreV1().LimitRanges(ns)), nil
	case "NetworkPolicy":
		return opsOf(c.Kube.NetworkingV1().NetworkPolicies(ns)), nil
	}
	return policyObjectOps{}, fmt.Errorf("no policy object of kind %s", kind)
}

// namespacedAPI is what opsOf needs of a typed client of one namespace.
type namespacedAPI[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// opsOf are policyObjectOps on the object named PolicyObjectName of api.
func opsOf[T metav1.Object](api namespacedAPI[T]) policyObjectOps {
	return policyObjectOps{
		get: func(ctx context.Context) (metav1.Object, error) {
			obj, err := api.Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
			return obj, err
		},
		patch: func(ctx context.Context, merge []byte) error {
			_, err := api.Patch(ctx, platformobj.PolicyObjectName, types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		},
		del: func(ctx context.Context, opts metav1.DeleteOptions) error {
			return api.Delete(ctx, platformobj.PolicyObjectName, opts)
		},
	}
}
