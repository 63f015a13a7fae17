package tenantctl

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// labeledObject is a policy object found upstream: where, and the hash of
// the spec last applied.
type labeledObject struct {
	namespace, name, hash string
}

// policyKind is a kind of policy object other than the ResourceQuota: how
// to list the tenant's, build the desired one (nil: none), and delete one.
type policyKind struct {
	kind   string
	list   func(ctx context.Context, c *Client, selector string) ([]labeledObject, error)
	build  func(t translate.Tenant, ns string, p policy.Policy) (runtime.Object, *metav1.ObjectMeta, any)
	delete func(ctx context.Context, c *Client, ns, name string) error
}

var limitRangeKind = policyKind{
	kind: "LimitRange",
	list: func(ctx context.Context, c *Client, sel string) ([]labeledObject, error) {
		l, err := c.Kube.CoreV1().LimitRanges("").List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, err
		}
		out := make([]labeledObject, 0, len(l.Items))
		for _, o := range l.Items {
			out = append(out, labeledObject{o.Namespace, o.Name, o.Annotations[policyHashAnnotation]})
		}
		return out, nil
	},
	build: func(t translate.Tenant, ns string, p policy.Policy) (runtime.Object, *metav1.ObjectMeta, any) {
		if lr := PolicyLimitRange(t, ns, p); lr != nil {
			return lr, &lr.ObjectMeta, lr.Spec
		}
		return nil, nil, nil
	},
	delete: func(ctx context.Context, c *Client, ns, name string) error {
		return c.Kube.CoreV1().LimitRanges(ns).Delete(ctx, name, metav1.DeleteOptions{})
	},
}

var networkPolicyKind = policyKind{
	kind: "NetworkPolicy",
	list: func(ctx context.Context, c *Client, sel string) ([]labeledObject, error) {
		l, err := c.Kube.NetworkingV1().NetworkPolicies("").List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, err
		}
		out := make([]labeledObject, 0, len(l.Items))
		for _, o := range l.Items {
			out = append(out, labeledObject{o.Namespace, o.Name, o.Annotations[policyHashAnnotation]})
		}
		return out, nil
	},
	build: func(t translate.Tenant, ns string, p policy.Policy) (runtime.Object, *metav1.ObjectMeta, any) {
		if np := PolicyNetworkPolicy(t, ns, p); np != nil {
			return np, &np.ObjectMeta, np.Spec
		}
		return nil, nil, nil
	},
	delete: func(ctx context.Context, c *Client, ns, name string) error {
		return c.Kube.NetworkingV1().NetworkPolicies(ns).Delete(ctx, name, metav1.DeleteOptions{})
	},
}

func (c *Client) reconcileLimitRanges(ctx context.Context, t translate.Tenant, p policy.Policy, active []string) error {
	return c.reconcileKind(ctx, t, p, active, limitRangeKind)
}

func (c *Client) reconcileNetworkPolicies(ctx context.Context, t translate.Tenant, p policy.Policy, active []string) error {
	return c.reconcileKind(ctx, t, p, active, networkPolicyKind)
}

// reconcileKind applies the desired object of kind k in each active
// namespace whose object is missing or was applied from another spec, and
// deletes the tenant's labeled objects of k that are not desired.
func (c *Client) reconcileKind(ctx context.Context, t translate.Tenant, p policy.Policy, active []string, k policyKind) error {
	found, err := k.list(ctx, c, PolicySelector(t))
	if err != nil {
		return fmt.Errorf("list the policy %ss of tenant %s: %w", k.kind, t, err)
	}
	have := map[string]string{} // namespace → hash of the policy object
	desired := map[string]bool{}
	var apply []runtime.Object
	for _, o := range found {
		if o.name == PolicyObjectName {
			have[o.namespace] = o.hash
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
			if err := c.replaceSquatter(ctx, k.kind, ns); err != nil {
				return err
			}
		}
		meta.Annotations = map[string]string{policyHashAnnotation: hash}
		apply = append(apply, obj)
	}
	if err := c.applyBounded(ctx, apply); err != nil {
		return err
	}
	for _, o := range found {
		if o.name == PolicyObjectName && desired[o.namespace] {
			continue
		}
		if err := k.delete(ctx, c, o.namespace, o.name); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete the %s %s/%s the policy of tenant %s no longer implies: %w", k.kind, o.namespace, o.name, t, err)
		}
	}
	return nil
}
