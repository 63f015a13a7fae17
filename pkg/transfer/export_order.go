package transfer

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The ranks of the apply order: what others need comes first.
const (
	rankCRD = iota
	rankNamespace
	rankClusterRBAC
	rankCluster
	rankNamespacedRBAC
	rankEarly // what workloads read: accounts, configuration, limits, claims
	rankNamespaced
	rankCustomCluster
	rankCustomNamespaced
)

var (
	gkCRD       = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	gkNamespace = schema.GroupKind{Kind: "Namespace"}
	rbacKinds   = map[string]bool{"ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true}
	earlyKinds  = map[string]bool{"ServiceAccount": true, "ConfigMap": true, "Secret": true, "LimitRange": true,
		"ResourceQuota": true, "PersistentVolumeClaim": true}
)

// tableIndex is the position of each built-in kind in the kinds table, the
// order within a rank.
var tableIndex = func() map[schema.GroupKind]int {
	m := map[schema.GroupKind]int{}
	for i, r := range translate.Kinds() {
		gk := schema.GroupKind{Group: r.Resource.Group, Kind: r.Kind}
		if _, dup := m[gk]; !dup {
			m[gk] = i
		}
	}
	return m
}()

// applyRank is the rank of a kind in the apply order: CRDs, namespaces,
// cluster RBAC, other cluster-scoped kinds, namespaced RBAC, what workloads
// read, the other built-in kinds, then custom resources.
func applyRank(gk schema.GroupKind, namespaced bool) int {
	_, builtin := tableIndex[gk]
	rbac := gk.Group == "rbac.authorization.k8s.io" && rbacKinds[gk.Kind]
	switch {
	case gk == gkCRD:
		return rankCRD
	case gk == gkNamespace:
		return rankNamespace
	case !builtin && namespaced:
		return rankCustomNamespaced
	case !builtin:
		return rankCustomCluster
	case rbac && !namespaced:
		return rankClusterRBAC
	case !namespaced:
		return rankCluster
	case rbac:
		return rankNamespacedRBAC
	case gk.Group == "" && earlyKinds[gk.Kind]:
		return rankEarly
	}
	return rankNamespaced
}

// compareKinds orders two kinds by applyRank, then by the kinds table, then
// by name.
func compareKinds(a schema.GroupKind, an bool, b schema.GroupKind, bn bool) int {
	if c := cmp.Compare(applyRank(a, an), applyRank(b, bn)); c != 0 {
		return c
	}
	ia, aok := tableIndex[a]
	ib, bok := tableIndex[b]
	if aok && bok {
		return cmp.Compare(ia, ib)
	}
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
}

// sortByApplyOrder sorts items by the apply order of their kinds (stable).
func sortByApplyOrder[T any](items []T, kindOf func(T) (schema.GroupKind, bool)) {
	slices.SortStableFunc(items, func(x, y T) int {
		a, an := kindOf(x)
		b, bn := kindOf(y)
		return compareKinds(a, an, b, bn)
	})
}

// SortObjects puts objects in apply order: by kind (sortByApplyOrder), then
// by namespace and name, so that an export is the same for the same objects.
func SortObjects(objs []*unstructured.Unstructured) {
	slices.SortStableFunc(objs, func(x, y *unstructured.Unstructured) int {
		gx, gy := x.GroupVersionKind().GroupKind(), y.GroupVersionKind().GroupKind()
		if c := compareKinds(gx, x.GetNamespace() != "", gy, y.GetNamespace() != ""); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.GetNamespace(), y.GetNamespace()), cmp.Compare(x.GetName(), y.GetName()))
	})
}
