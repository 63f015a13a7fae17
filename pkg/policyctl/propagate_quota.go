package policyctl

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// QuotaShare is one namespace's part in the split of a tenant-wide quota:
// what its ResourceQuota holds now.
type QuotaShare struct {
	// Namespace is the upstream namespace.
	Namespace string
	// Hard is the namespace ResourceQuota's spec.hard (nil when it has
	// none yet).
	Hard corev1.ResourceList
	// Used is its status.used: what quota admission counted, raised by
	// every admitted create before the create is stored.
	Used corev1.ResourceList
	// Fixed is a namespace whose share does not change (one being
	// deleted): it keeps what it holds.
	Fixed bool
	// Hosts is the quota's translate.IngressHostsAnnotation.
	Hosts string
}

// SplitQuota divides the tenant-wide quota q among the namespaces of shares
// that are not Fixed: each gets its usage and an equal part of what no
// namespace uses (q − Σused; the remainder to those that use the most,
// then in order), so that Σhard = q when Σused ≤ q. Where the namespaces already
// use more than q, every namespace gets exactly its usage (Σhard = Σused):
// nothing more is admitted anywhere. Fixed namespaces count with
// max(hard, used). The result maps each non-Fixed namespace to its hard.
func SplitQuota(q corev1.ResourceList, shares []QuotaShare) map[string]corev1.ResourceList {
	out := map[string]corev1.ResourceList{}
	var open []int
	for i, s := range shares {
		if !s.Fixed {
			open = append(open, i)
			out[s.Namespace] = corev1.ResourceList{}
		}
	}
	if len(open) == 0 {
		return out
	}
	for name, total := range q {
		sc := scaleOf(total, shares, name)
		sum := int64(0)
		for _, s := range shares {
			u := amount(s.Used, name, sc)
			if s.Fixed {
				u = max(u, amount(s.Hard, name, sc))
			}
			sum = addSat(sum, u)
		}
		free := max(int64(0), toScale(total, sc)-sum)
		n := int64(len(open))
		// The remainder goes to the namespaces that use the most (the
		// ones asking), then by name: a quota smaller than the number of
		// namespaces follows its use from rebalance to rebalance.
		order := slices.Clone(open)
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Compare(amount(shares[b].Used, name, sc), amount(shares[a].Used, name, sc))
		})
		for k, i := range order {
			part := free / n
			if int64(k) < free%n {
				part++
			}
			out[shares[i].Namespace][name] = fromScale(addSat(amount(shares[i].Used, name, sc), part), sc, total.Format)
		}
	}
	return out
}

// scale is the unit quotas are split in: whole units when the quota and
// every usage are whole (pods, memory, count/...), else thousandths (cpu).
type scale bool

const (
	units scale = false
	milli scale = true
)

func scaleOf(total resource.Quantity, shares []QuotaShare, name corev1.ResourceName) scale {
	whole := func(q resource.Quantity) bool { return q.Cmp(*resource.NewQuantity(q.Value(), q.Format)) == 0 }
	if !whole(total) {
		return milli
	}
	for _, s := range shares {
		for _, l := range []corev1.ResourceList{s.Used, s.Hard} {
			if v, ok := l[name]; ok && !whole(v) {
				return milli
			}
		}
	}
	return units
}

func toScale(q resource.Quantity, sc scale) int64 {
	if sc == milli {
		return q.MilliValue()
	}
	return q.Value()
}

func fromScale(v int64, sc scale, format resource.Format) resource.Quantity {
	if sc == milli {
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	}
	return *resource.NewQuantity(v, format)
}

func amount(l corev1.ResourceList, name corev1.ResourceName, sc scale) int64 {
	v, ok := l[name]
	if !ok {
		return 0
	}
	return toScale(v, sc)
}

func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// lowered is cur lowered to want: per resource of want, the smaller of the
// two (a resource cur lacks counts as 0, so a new namespace starts with
// nothing); the resources want lacks are dropped (the policy no longer
// bounds them).
func lowered(cur, want corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, w := range want {
		switch c, ok := cur[name]; {
		case !ok:
			out[name] = *resource.NewQuantity(0, w.Format)
		case c.Cmp(w) > 0:
			out[name] = w
		default:
			out[name] = c
		}
	}
	return out
}

// raised raises the hard of every namespace of shares (in order) towards
// want, out of what q leaves: slack = q − Σ max(hard, used) over all
// namespaces (what is already promised anywhere). It never promises more
// than q in total. It returns the new hard of the namespaces it changes.
func raised(q corev1.ResourceList, shares []QuotaShare, want map[string]corev1.ResourceList) map[string]corev1.ResourceList {
	out := map[string]corev1.ResourceList{}
	names := make([]corev1.ResourceName, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		total := q[name]
		sc := scaleOf(total, shares, name)
		promised := int64(0)
		for _, s := range shares {
			promised = addSat(promised, max(amount(s.Hard, name, sc), amount(s.Used, name, sc)))
		}
		slack := toScale(total, sc) - promised
		for _, s := range shares {
			w, ok := want[s.Namespace][name]
			if !ok || slack <= 0 {
				continue
			}
			// A hard below the usage is raised from the usage: what lies
			// between is promised already (counted in promised).
			base := max(amount(s.Hard, name, sc), amount(s.Used, name, sc))
			inc := min(toScale(w, sc)-base, slack)
			if inc <= 0 {
				continue
			}
			slack -= inc
			if out[s.Namespace] == nil {
				out[s.Namespace] = corev1.ResourceList{}
				for k, v := range s.Hard {
					out[s.Namespace][k] = v
				}
			}
			out[s.Namespace][name] = fromScale(base+inc, sc, total.Format)
		}
	}
	return out
}
