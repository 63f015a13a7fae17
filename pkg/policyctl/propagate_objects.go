package policyctl

import (
	"context"
	"fmt"
	"maps"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nsobjects"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// policyKind is a kind of policy object other than the ResourceQuota: how
// to read the one of a namespace, build the desired one (nil: none), and
// delete one.
type policyKind struct {
	group, kind string
	get         func(ctx context.Context, io policyIO, ns string) (metav1.Object, error)
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
	group: networkingv1.GroupName,
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
	type hit struct {
		obj T
		ok  bool
	}
	hits, err := nsobjects.PerNamespace(ctx, namespaces, applyLimit, func(ctx context.Context, ns string) (hit, error) {
		obj, err := get(ctx, ns)
		if apierrors.IsNotFound(err) {
			return hit{}, nil
		}
		if err != nil {
			return hit{}, err
		}
		l := obj.GetLabels()
		return hit{obj, l[translate.TenantLabel] == t.Name() && l[translate.PropagatedFromLabel] == translate.PropagatedFromPolicy}, nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]T, len(namespaces))
	for i, ns := range namespaces {
		if hits[i].ok {
			out[ns] = hits[i].obj
		}
	}
	return out, nil
}

// reconcileKind makes the object of kind k in each active namespace as p
// implies it (kindPlan), written by policyWriter. A dry run (a cache)
// writes nothing: any write is drift.
func (io policyIO) reconcileKind(ctx context.Context, t translate.Tenant, p policy.Policy, active []string, k policyKind) error {
	found, err := policyObjectsIn(ctx, t, active, func(ctx context.Context, ns string) (metav1.Object, error) { return k.get(ctx, io, ns) })
	if err != nil {
		return fmt.Errorf("read the policy %ss of tenant %s: %w", k.kind, t, err)
	}
	w := policyWriter{c: io.c, t: t, k: k, built: map[string]runtime.Object{}, unsound: map[string]bool{}}
	plan, err := kindPlan(t, p, active, k, found, w.built, w.unsound)
	if err != nil {
		return err
	}
	if io.cache != nil {
		if !plan.Empty() {
			return errPolicyDrift
		}
		return nil
	}
	_, err = nsobjects.Apply(ctx, plan, w, applyLimit)
	return err
}

// kindPlan is the core's diff (pkg/nsobjects) of the objects of kind k p
// implies in the active namespaces against those found (labeled as the
// policy's): one that is missing, was applied from another spec
// (policyHashAnnotation) or is not sound is applied; one that p no longer
// implies is deleted. It fills built (the objects to apply) and unsound
// (found objects to replace like a squatter), by namespace.
func kindPlan(t translate.Tenant, p policy.Policy, active []string, k policyKind, found map[string]metav1.Object, built map[string]runtime.Object, unsound map[string]bool) (nsobjects.Plan, error) {
	resource := translate.ResourceOf(k.group, k.kind)
	var existing []nsobjects.Object
	for _, ns := range slices.Sorted(maps.Keys(found)) {
		existing = append(existing, stub(resource, found[ns]))
		unsound[ns] = !k.sound(found[ns])
	}
	var wants []nsobjects.Want
	for _, ns := range active {
		obj, meta, spec := k.build(t, ns, p)
		if obj == nil {
			continue
		}
		hash, err := specHash(spec)
		if err != nil {
			return nsobjects.Plan{}, err
		}
		meta.Annotations = map[string]string{policyHashAnnotation: hash}
		built[ns] = obj
		wants = append(wants, nsobjects.Want{Object: stub(resource, meta)})
	}
	return nsobjects.Diff(wants, existing, nsobjects.Rules{Same: func(have nsobjects.Object, want nsobjects.Want) bool {
		return !unsound[have.GetNamespace()] && have.GetAnnotations()[policyHashAnnotation] == want.GetAnnotations()[policyHashAnnotation]
	}}), nil
}

// policyWriter writes a kind's policy objects as the administrator
// (nsobjects.Writer): server-side apply, after replacing what is in the
// way where the object is missing or not sound (replaceSquatter); deletes
// by name. It sets no preconditions: the apply owns the fields it sets
// whatever changed meanwhile, and what it does not set is what
// replaceSquatter clears.
type policyWriter struct {
	c       *Client
	t       translate.Tenant
	k       policyKind
	built   map[string]runtime.Object // the objects to apply, by namespace
	unsound map[string]bool           // by namespace
}

// stub is what the diff reads of a policy object: where it is, its
// annotations (the hash), and the UID and resourceVersion it was read at.
// The writer applies the built object itself.
func stub(resource string, m metav1.Object) nsobjects.Object {
	u := &unstructured.Unstructured{}
	u.SetNamespace(m.GetNamespace())
	u.SetName(m.GetName())
	u.SetAnnotations(m.GetAnnotations())
	u.SetUID(m.GetUID())
	u.SetResourceVersion(m.GetResourceVersion())
	return nsobjects.Object{Resource: resource, Unstructured: u}
}

func (w policyWriter) Create(ctx context.Context, o nsobjects.Object) error {
	if err := w.c.replaceSquatter(ctx, w.k.kind, o.GetNamespace()); err != nil {
		return err
	}
	_, err := w.c.Apply(ctx, w.built[o.GetNamespace()], false)
	return err
}

// Update applies the built object as it is (no UID or resourceVersion:
// no precondition, as Create).
func (w policyWriter) Update(ctx context.Context, o nsobjects.Object) error {
	if w.unsound[o.GetNamespace()] {
		if err := w.c.replaceSquatter(ctx, w.k.kind, o.GetNamespace()); err != nil {
			return err
		}
	}
	_, err := w.c.Apply(ctx, w.built[o.GetNamespace()], false)
	return err
}

func (w policyWriter) Delete(ctx context.Context, o nsobjects.Object) error {
	err := w.k.delete(ctx, w.c, o.GetNamespace(), o.GetName())
	switch {
	case apierrors.IsNotFound(err):
		return nsobjects.ErrStale
	case err != nil:
		return fmt.Errorf("delete the %s %s/%s the policy of tenant %s no longer implies: %w", w.k.kind, o.GetNamespace(), o.GetName(), w.t, err)
	}
	return nil
}
