package nsobjects

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Object is an object in a tenant's namespace, wanted or existing, with
// the resource it is of.
type Object struct {
	Resource string // the plural resource, e.g. "configmaps"
	*unstructured.Unstructured
}

// Key names an object upstream.
type Key struct{ Resource, Namespace, Name string }

// KeyOf is o's Key.
func KeyOf(o Object) Key { return Key{o.Resource, o.GetNamespace(), o.GetName()} }

// Want is one entry of a builder's output, in the order the builder
// decides (which is the order of the plan and of its skips): an object
// wanted in a namespace, or, with Refused set, why Origin gets no object
// (there, or anywhere).
type Want struct {
	// Object is the desired object (none when Refused is set). Diff sets
	// the UID and resourceVersion of the existing object on it for an
	// update: the builder hands over a fresh one.
	Object
	// Origin is what the object is built from (a marked source), which a
	// skip is reported on; the zero Object when there is none.
	Origin Object
	// Refused, when set, is why Origin gets no object.
	Refused string
}

// Skip is an origin that gets no object (or not everywhere), and why.
type Skip struct {
	Source Object
	Reason string
}

// Plan is what a reconcile writes.
type Plan struct {
	Create []Object // new objects
	Update []Object // existing objects to rewrite (UID and resourceVersion of the existing one set)
	Delete []Object // existing objects no want claims (as read: UID and resourceVersion set)
	Skips  []Skip
}

// Empty reports whether the plan writes nothing (skips write nothing).
func (p Plan) Empty() bool { return len(p.Create)+len(p.Update)+len(p.Delete) == 0 }

// Rules are where the reconcilers differ in the diff.
type Rules struct {
	// Same reports whether have already is want (no update). Required.
	Same func(have Object, want Want) bool
	// Conflict, when set, says why want may not take over have, an
	// existing object in its place ("" when it may): want is skipped, and
	// have, claimed by no want, is deleted.
	Conflict func(have Object, want Want) string
	// Taken says why want is skipped when an earlier want (first) has its
	// place. Required when two wants may share a place.
	Taken func(first, want Want) string
}

// Diff plans what makes existing agree with wants, purely. Wants are taken
// in order: a refused one is a skip; one whose place an earlier want
// claimed is a skip (rules.Taken); one whose place holds an object it may
// not take over is a skip (rules.Conflict); else it claims its place and is
// created (nothing there), updated (rules.Same false: with the UID and
// resourceVersion of the object there, as preconditions) or left alone.
// Every existing object no want claims is deleted, in the order of
// existing. existing holds only objects the reconcile owns (a create over
// anything else is refused by the API server, which the caller reports).
func Diff(wants []Want, existing []Object, rules Rules) Plan {
	var p Plan
	have := make(map[Key]Object, len(existing))
	for _, o := range existing {
		have[KeyOf(o)] = o
	}
	claimed := map[Key]Want{}
	for _, w := range wants {
		if w.Refused != "" {
			p.Skips = append(p.Skips, Skip{w.Origin, w.Refused})
			continue
		}
		k := KeyOf(w.Object)
		if first, taken := claimed[k]; taken {
			p.Skips = append(p.Skips, Skip{w.Origin, rules.Taken(first, w)})
			continue
		}
		h, exists := have[k]
		if exists && rules.Conflict != nil {
			if reason := rules.Conflict(h, w); reason != "" {
				p.Skips = append(p.Skips, Skip{w.Origin, reason})
				continue
			}
		}
		claimed[k] = w
		switch {
		case !exists:
			p.Create = append(p.Create, w.Object)
		case !rules.Same(h, w):
			w.SetResourceVersion(h.GetResourceVersion())
			w.SetUID(h.GetUID())
			p.Update = append(p.Update, w.Object)
		}
	}
	for _, o := range existing {
		if _, ok := claimed[KeyOf(o)]; !ok {
			p.Delete = append(p.Delete, o)
		}
	}
	return p
}
