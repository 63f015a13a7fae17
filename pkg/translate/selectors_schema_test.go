package translate

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// selectorTypes are the Go types of the API that select objects by their
// labels (or nodes by theirs, or objects by their scope).
var selectorTypes = map[reflect.Type]bool{
	reflect.TypeFor[metav1.LabelSelector]():        true,
	reflect.TypeFor[corev1.NodeSelector]():         true,
	reflect.TypeFor[corev1.NodeSelectorTerm]():     true,
	reflect.TypeFor[corev1.TopologySelectorTerm](): true,
	reflect.TypeFor[corev1.ScopeSelector]():        true,
}

// selectorFields appends the JSON paths of the selectors in t at path.
func selectorFields(t reflect.Type, path string, inStack map[reflect.Type]bool, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case selectorTypes[t]:
		*out = append(*out, path)
		return
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		selectorFields(t.Elem(), path+"[]", inStack, out)
		return
	case t.Kind() == reflect.Map:
		selectorFields(t.Elem(), path+".*", inStack, out)
		return
	case t.Kind() != reflect.Struct || inStack[t]:
		return
	}
	inStack[t] = true
	defer delete(inStack, t)
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			selectorFields(f.Type, path, inStack, out)
			continue
		}
		p := strings.TrimPrefix(path+"."+name, ".")
		if path == "" && (name == "metadata" || name == "status") {
			continue // labels, not selectors; status is the cluster's
		}
		if f.Type == reflect.TypeFor[map[string]string]() && (name == "selector" || name == "nodeSelector") {
			*out = append(*out, p)
			continue
		}
		selectorFields(f.Type, p, inStack, out)
	}
}

// fieldMatches reports whether the selector path matches the table's
// pattern ("[]" ignored, "*" one step).
func fieldMatches(pattern, path string) bool {
	ps := strings.Split(strings.ReplaceAll(pattern, "[]", ""), ".")
	fs := strings.Split(strings.ReplaceAll(path, "[]", ""), ".")
	if len(ps) != len(fs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != fs[i] {
			return false
		}
	}
	return true
}

// classified reports whether SelectorTable classifies the selector at path
// of rule's objects.
func classified(rule *KindRule, path string) bool {
	resource, rel := rule.Resource, path
	for _, p := range rule.PodSpecPaths() {
		if r, ok := strings.CutPrefix(path, p+"."); ok {
			resource, rel = PodSpecSelector, r
		}
	}
	return slices.ContainsFunc(SelectorTable, func(s SelectorRule) bool {
		return s.Resource == resource && slices.ContainsFunc(s.Fields, func(f string) bool { return fieldMatches(f, rel) })
	})
}

// TestSelectorTableCoversTheSchema walks the Go types, in every version
// client-go knows, of every kind tenants write, and requires each selector
// field found to be classified in SelectorTable: a kind or a field added
// with a selector the table does not know fails here.
func TestSelectorTableCoversTheSchema(t *testing.T) {
	for _, rule := range Kinds() {
		if rule.Treatment != Namespaced && rule.Treatment != TenantOwned && rule.Treatment != Shared {
			continue
		}
		var found []string
		types := 0
		for gvk, typ := range scheme.Scheme.AllKnownTypes() {
			if gvk.Group != rule.Resource.Group || gvk.Kind != rule.Kind || gvk.Version == "__internal" {
				continue
			}
			types++
			selectorFields(typ, "", map[reflect.Type]bool{}, &found)
		}
		if types == 0 {
			t.Logf("%s: no Go type in client-go's scheme to walk", rule.Resource)
			continue
		}
		slices.Sort(found)
		for _, path := range slices.Compact(found) {
			assert.True(t, classified(rule, path), "%s %s: a selector SelectorTable does not classify", rule.Resource, path)
		}
	}
}

// TestSelectorFieldsWalk: the walk finds the selectors known to be there.
func TestSelectorFieldsWalk(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[corev1.Pod](), []string{"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaceSelector",
			"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.labelSelector", "spec.nodeSelector",
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", "spec.topologySpreadConstraints[].labelSelector"}},
		{reflect.TypeFor[corev1.Service](), []string{"spec.selector"}},
		{reflect.TypeFor[corev1.ResourceQuota](), []string{"spec.scopeSelector"}},
	} {
		var found []string
		selectorFields(tc.typ, "", map[reflect.Type]bool{}, &found)
		for _, w := range tc.want {
			assert.Contains(t, found, w, tc.typ.String())
		}
	}
	assert.True(t, fieldMatches("spec.metrics[].*.metric.selector", "spec.metrics[].pods.metric.selector"))
	assert.False(t, fieldMatches("spec.metrics[].*.metric.selector", "spec.metrics[].pods.selector"))
}
