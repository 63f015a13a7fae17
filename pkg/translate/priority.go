package translate

import (
	"fmt"
	"slices"
	"strings"
)

// podSpecs calls fn with every pod spec of an object (or partial object) of
// rule.
func podSpecs(rule *KindRule, obj map[string]any, fn func(spec map[string]any) error) error {
	for _, path := range podSpecPaths(rule) {
		if err := walk(obj, path, fn); err != nil {
			return err
		}
	}
	return nil
}

// podSpecPaths are the paths of the pod specs of rule's objects ("spec",
// "spec.template.spec", ...), from its priorityClassName references.
func podSpecPaths(rule *KindRule) []string {
	var out []string
	for _, ref := range rule.Refs {
		if ref.podSpec {
			out = append(out, strings.TrimSuffix(ref.Field, ".priorityClassName"))
		}
	}
	return out
}

// checkPriority refuses a pod or pod template (upstream form) whose
// priorityClassName names a cluster PriorityClass of positive value that
// the namespace (upstream) does not allow: such a pod would outrank, and
// could preempt, every other tenant's pods. A tenant's own classes are
// capped at MaxTenantPriority.
func (t *Translator) checkPriority(rule *KindRule, ns string, obj map[string]any) error {
	if t.opts.Platform == nil {
		return nil
	}
	return podSpecs(rule, obj, func(spec map[string]any) error {
		name := str(spec, "priorityClassName")
		if name == "" {
			return nil
		}
		if local, ok := t.tenant.TenantClusterName(name); ok && t.opts.Shared != nil && t.opts.Shared.TenantOwns(grPriorityClass, local) {
			return nil
		}
		value, found, err := t.opts.Platform.PriorityClassValue(name)
		if err != nil {
			return lookupError("read PriorityClass "+name, err)
		}
		if !found || value <= MaxTenantPriority {
			return nil
		}
		allowed, err := t.opts.Platform.AllowedPriorityClasses(ns)
		if err != nil {
			return lookupError("read the PriorityClasses the namespace allows", err)
		}
		if slices.Contains(allowed, name) {
			return nil
		}
		return forbidden(grPriorityClass, name, fmt.Sprintf(
			"the cluster's PriorityClass %s has value %d: a tenant's pods may only use classes of value %d or less (their own, or the cluster's), unless the tenant's policy allows the class (kubectl zoo policy set --priority-classes) or the platform allows it in the namespace (annotation %s)",
			name, value, MaxTenantPriority, PriorityClassesAnnotation))
	})
}
