package translate

// PodAffinityTermPaths are the pod affinity terms of a pod spec, as dotted
// paths relative to the spec ("[]" marks a list). The scheduler evaluates
// a term's labelSelector over the pods of the namespaces the term names
// (namespaces) and selects (namespaceSelector) — over every namespace of
// the shared cluster, not only the pod's own. A required podAffinity term
// that matches another tenant's pod tells the tenant that the pod exists
// (its pod schedules), and an existing pod's required podAntiAffinity term
// keeps every pod it matches, of any tenant, off the pod's node.
var PodAffinityTermPaths = []string{
	"affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[]",
	"affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm",
	"affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[]",
	"affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm",
}

// podAffinityRef confines the pod affinity terms of the pod spec at path to
// the tenant's namespaces: their namespaces are prefixed, and a
// namespaceSelector (an empty one means every namespace) gets the
// requirement TenantLabel In (tenant) on the way in, stripped on the way
// out, as a NetworkPolicy's does. A term without either still means the
// pod's own namespace. On the way out, a namespace that is not the
// tenant's (written upstream by an admin) is left out of namespaces.
func podAffinityRef(path string) Ref {
	return Ref{Field: path + ".affinity", Target: TargetSelector, apply: func(m *mapper, obj map[string]any) error {
		for _, term := range PodAffinityTermPaths {
			if err := walk(obj, path+"."+term, m.podAffinityTerm); err != nil {
				return err
			}
		}
		return nil
	}}
}

// podAffinityTerm maps one PodAffinityTerm.
func (m *mapper) podAffinityTerm(term map[string]any) error {
	if err := m.mapStrings(term, "namespaces", m.namespace); err != nil {
		return err
	}
	sel, ok := term["namespaceSelector"].(map[string]any)
	if !ok {
		return nil
	}
	return m.labelSelector(sel, true)
}
