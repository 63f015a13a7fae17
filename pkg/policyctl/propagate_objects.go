package policyctl

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// policyKind is a kind of policy object other than the ResourceQuota: how
// to read the one of a namespace, build the desired one (nil: none), and
// delete one.
type policyKind struct {
	kind string
	get  func(ctx context.Context, io policyIO, ns string) (metav1.Object, error)
	// sound reports whether an object labeled as the policy's is as
	// kubectl-zoo writes it in what the hash does not cover (squatter.go).
	sound  func(metav1.Object) bool
	build  func(t translate.Tenant, ns string, p policy.Policy) (runtime.Object, *metav1.ObjectMeta, any)
	delete func(ctx context.Context, c *Client, ns, name string) error
}

var limitRangeKind = policyKind{
	kind:  "LimitRange",
	sound: notDeleted,
	get: func(ctx context.Context, io policyIO, ns string) (metav1.Object, error) {
		if io.cache != nil {
			return io.cache.LimitRange(ns)
		}
		return io.c.Kube.CoreV1().LimitRanges(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
	},
	build: func(t translate.Tenant, ns string, p policy.Policy) (runtime.Object, *metav1.ObjectMeta, any) {
		if lr := platformobj.PolicyLimitRange(t, ns, p); lr != nil {
			return lr, &lr.ObjectMeta, lr.Spec
		}
		return nil, nil, nil
	},
	delete: func(ctx context.Context, c *Client, ns, name string) error {
		return c.Kube.CoreV1().LimitRanges(ns).Delete(ctx, name, metav1.DeleteOptions{})
	},
}

var networkPolicyKind = policyKind{
	kind:  "NetworkPolicy",
	sound: soundNetworkPolicy,
	get: func(ctx context.Context, io policyIO, ns string) (metav1.Object, error) {
		if io.cache != nil {
			return io.cache.NetworkPolicy(ns)
		}
		return io.c.Kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, platformobj.PolicyObjectName, metav1.GetOptions{})
	},
	build: func(t translate.Tenant, ns string, p policy.Policy) (runtime.Object, *metav1.ObjectMeta, any) {
		if np := platformobj.PolicyNetworkPolicy(t, ns, p); np != nil {
			return np, &np.ObjectMeta, np.Spec
		}
		return nil, nil, nil
	},
	delete: func(ctx context.Context, c *Client, ns, name string) error {
		return c.Kube.NetworkingV1().NetworkPolicies(ns).Delete(ctx, name, metav1.DeleteOptions{})
	},
}

// policyObjectsIn reads the policy object of kind get (named
// PolicyObjectName) in each of namespaces, applyLimit at once, and returns
// those labeled as tenant t's policy's, by namespace. One GET a namespace:
// a LIST by label across the cluster would filter every tenant's.
func policyObjectsIn[T metav1.Object](ctx context.Context, t translate.Tenant, namespaces []string, get func(ctx context.Context, ns string) (T, error)) (map[string]T, error) {
	found := make([]T, len(namespaces))
	ok := make([]bool, len(namespaces))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(applyLimit)
	for i, ns := range namespaces {
		g.Go(func() error {
			obj, err := get(gctx, ns)
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			l := obj.GetLabels()
			found[i], ok[i] = obj, l[translate.TenantLabel] == t.Name() && l[translate.PropagatedFromLabel] == translate.PropagatedFromPolicy
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[string]T, len(namespaces))
	for i, ns := range namespaces {
		if ok[i] {
			out[ns] = found[i]
		}
	}
	return out, nil
}

// reconcileKind applies the desired object of kind k in each active
// namespace whose object is missing or was applied from another spec, and
// deletes the tenant's labeled objects of k that are not desired.
func (io policyIO) reconcileKind(ctx context.Context, t translate.Tenant, p policy.Policy, active []string, k policyKind) error {
	found, err := policyObjectsIn(ctx, t, active, func(ctx context.Context, ns string) (metav1.Object, error) { return k.get(ctx, io, ns) })
	if err != nil {
		return fmt.Errorf("read the policy %ss of tenant %s: %w", k.kind, t, err)
	}
	have := map[string]string{} // namespace → hash of the policy object
	desired := map[string]bool{}
	var apply []runtime.Object
	for ns, o := range found {
		if k.sound(o) { // else replaced like a squatter
			have[ns] = o.GetAnnotations()[policyHashAnnotation]
		}
	}
	for _, ns := range active {
		obj, meta, spec := k.build(t, ns, p)
		if obj == nil {
			continue
		}
		desired[ns] = true
		hash, err := specHash(spec)
		if err != nil {
			return err
		}
		if h, ok := have[ns]; ok && h == hash {
			continue
		}
		if _, ok := have[ns]; !ok {
			if err := io.replaceSquatter(ctx, k.kind, ns); err != nil {
				return err
			}
		}
		meta.Annotations = map[string]string{policyHashAnnotation: hash}
		apply = append(apply, obj)
	}
	if err := io.apply(ctx, apply); err != nil {
		return err
	}
	for ns := range found {
		if desired[ns] {
			continue
		}
		if io.cache != nil {
			return errPolicyDrift
		}
		if err := k.delete(ctx, io.c, ns, platformobj.PolicyObjectName); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete the %s %s/%s the policy of tenant %s no longer implies: %w", k.kind, ns, platformobj.PolicyObjectName, t, err)
		}
	}
	return nil
}
