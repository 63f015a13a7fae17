package nsobjects

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// cm is a ConfigMap ns/name holding v; with rv set, as read upstream.
func cm(ns, name, v, rv string) Object {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": v}}}
	u.SetNamespace(ns)
	u.SetName(name)
	if rv != "" {
		u.SetResourceVersion(rv)
		u.SetUID(types.UID("uid-" + ns + "-" + name))
	}
	return Object{Resource: "configmaps", Unstructured: u}
}

func want(o Object, origin string) Want {
	return Want{Object: o, Origin: cm("src", origin, "", "")}
}

func refs(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%s/%s=%v@%s", o.GetNamespace(), o.GetName(), o.Object["data"].(map[string]any)["k"], o.GetResourceVersion()))
	}
	return out
}

func TestDiff(t *testing.T) {
	byContent := Rules{
		Same: func(have Object, w Want) bool {
			return have.Object["data"].(map[string]any)["k"] == w.Object.Object["data"].(map[string]any)["k"]
		},
		Conflict: func(have Object, w Want) string {
			if have.Object["data"].(map[string]any)["k"] == "foreign" {
				return "foreign object in " + w.GetNamespace()
			}
			return ""
		},
		Taken: func(first, w Want) string { return w.Origin.GetName() + " loses to " + first.Origin.GetName() },
	}
	cases := []struct {
		name                   string
		wants                  []Want
		existing               []Object
		create, update, delete []string
		skips                  []string
	}{{
		name:   "nothing there: created, without preconditions",
		wants:  []Want{want(cm("a", "c", "v", ""), "c"), want(cm("b", "c", "v", ""), "c")},
		create: []string{"a/c=v@", "b/c=v@"},
	}, {
		name:     "the same: nothing written",
		wants:    []Want{want(cm("a", "c", "v", ""), "c")},
		existing: []Object{cm("a", "c", "v", "5")},
	}, {
		name:     "different: updated with the existing object's resourceVersion",
		wants:    []Want{want(cm("a", "c", "new", ""), "c")},
		existing: []Object{cm("a", "c", "old", "5")},
		update:   []string{"a/c=new@5"},
	}, {
		name:     "claimed by no want: deleted as read",
		existing: []Object{cm("a", "gone", "v", "5"), cm("b", "c", "v", "6")},
		wants:    []Want{want(cm("b", "c", "v", ""), "c")},
		delete:   []string{"a/gone=v@5"},
	}, {
		name:   "refused origins are skips, in the builder's order",
		wants:  []Want{{Origin: cm("src", "x", "", ""), Refused: "too big"}, want(cm("a", "c", "v", ""), "c"), {Origin: cm("src", "y", "", ""), Refused: "bad selector"}},
		create: []string{"a/c=v@"},
		skips:  []string{"too big", "bad selector"},
	}, {
		name:   "two wants of one place: the first keeps it",
		wants:  []Want{want(cm("a", "c", "first", ""), "one"), want(cm("a", "c", "second", ""), "two")},
		create: []string{"a/c=first@"},
		skips:  []string{"two loses to one"},
	}, {
		name:     "an object the want may not take over: skipped, and deleted as claimed by none",
		wants:    []Want{want(cm("a", "c", "v", ""), "c")},
		existing: []Object{cm("a", "c", "foreign", "5")},
		delete:   []string{"a/c=foreign@5"},
		skips:    []string{"foreign object in a"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Diff(tc.wants, tc.existing, byContent)
			assert.Equal(t, tc.create, refs(p.Create))
			assert.Equal(t, tc.update, refs(p.Update))
			assert.Equal(t, tc.delete, refs(p.Delete))
			var reasons []string
			for _, s := range p.Skips {
				reasons = append(reasons, s.Reason)
			}
			assert.Equal(t, tc.skips, reasons)
			assert.Equal(t, len(tc.create)+len(tc.update)+len(tc.delete) == 0, p.Empty())
		})
	}
}

// TestDiffWithoutConflictRule: without a Conflict rule, a want takes over
// the object in its place (the policy's objects, labeled as its own).
func TestDiffWithoutConflictRule(t *testing.T) {
	p := Diff([]Want{want(cm("a", "c", "v", ""), "c")}, []Object{cm("a", "c", "old", "5")},
		Rules{Same: func(Object, Want) bool { return false }})
	assert.Equal(t, []string{"a/c=v@5"}, refs(p.Update))
	assert.Empty(t, p.Delete)
}
