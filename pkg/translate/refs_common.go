package translate

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// groupOf returns the group of an apiVersion ("apps/v1" → "apps", "v1" → "").
func groupOf(apiVersion string) string {
	g, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return g
}

// namespaceRef is a Ref to a string field holding a namespace name.
func namespaceRef(path, key string) Ref {
	return stringField(TargetNamespace, path, key, func(m *mapper, _ map[string]any, v string) (string, error) { return m.namespace(v) })
}

// apiGroupsRef maps a list of API groups ("*" stays).
func apiGroupsRef(path, key string) Ref {
	return withField(atPath(TargetAPIGroup, path, func(m *mapper, obj map[string]any) error { return m.mapStrings(obj, key, m.apiGroupOrWildcard) }), path+"."+key)
}

// withField names a Ref made at the parent of its field (atPath) by the
// field itself, so that no two references of a kind share a name.
func withField(r Ref, field string) Ref {
	r.Field = field
	return r
}

func (m *mapper) apiGroupOrWildcard(g string) (string, error) {
	if g == "*" {
		return g, nil
	}
	return m.apiGroup(g)
}

// apiVersionRef maps a string field holding an apiVersion.
func apiVersionRef(target Target, path, key string) Ref {
	return stringField(target, path, key, func(m *mapper, _ map[string]any, v string) (string, error) { return m.apiVersion(v) })
}

// apiGroupRef maps a string field holding one API group.
func apiGroupRef(target Target, path, key string) Ref {
	return stringField(target, path, key, func(m *mapper, _ map[string]any, v string) (string, error) { return m.apiGroup(v) })
}

// clusterNameRef is a Ref to the name of a cluster-scoped object of gr.
func clusterNameRef(path, key string, gr schema.GroupResource) Ref {
	return stringField(TargetOwned, path, key, func(m *mapper, _ map[string]any, v string) (string, error) {
		return m.objectName(kindsByResource[gr], v)
	})
}

// sharedNameRef is a Ref to the name of an object of a shared kind.
func sharedNameRef(path, key string, gr schema.GroupResource) Ref {
	return stringField(TargetShared, path, key, func(m *mapper, _ map[string]any, v string) (string, error) { return m.sharedRef(gr, v) })
}

// objectRefAt is a Ref to ObjectReferences ({apiVersion, kind, namespace,
// name}). On the way out, a reference to an object that is not the
// tenant's (another namespace, API group or cluster-scoped object, written
// upstream by an admin or a controller) is left out whole: without its
// namespace it would read as the object of that name in the referring
// object's own namespace.
func objectRefAt(path string) Ref {
	parentPath, key := splitField(path)
	return Ref{Field: path, Target: TargetObject, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, parentPath, func(parent map[string]any) error {
			ref, ok := parent[key].(map[string]any)
			if !ok {
				return nil
			}
			if !m.in && !m.namesTenants(ref) {
				delete(parent, key)
				return nil
			}
			return m.objectReference(ref)
		})
	}}
}

// namesTenants reports whether the upstream object reference ref names
// only what is the tenant's: its namespace, its API group and, for a
// cluster-scoped object the tenant owns, its name.
func (m *mapper) namesTenants(ref map[string]any) bool {
	if ns := str(ref, "namespace"); ns != "" {
		if _, ok := m.tenant().TenantNamespace(ns); !ok {
			return false
		}
	}
	av := str(ref, "apiVersion")
	if _, ok := m.tenant().TenantAPIVersion(av); av != "" && !ok {
		return false
	}
	_, err := m.objectName(m.t.ruleForKind(groupOf(av), str(ref, "kind")), str(ref, "name"))
	return !IsNotTenants(err)
}

func (m *mapper) objectReference(ref map[string]any) error {
	av := str(ref, "apiVersion")
	group := groupOf(av)
	if err := m.mapString(ref, "apiVersion", m.apiVersion); err != nil {
		return err
	}
	if !m.in {
		group = groupOf(str(ref, "apiVersion"))
	}
	if err := m.mapString(ref, "namespace", m.namespace); err != nil {
		return err
	}
	rule := m.t.ruleForKind(group, str(ref, "kind"))
	return m.mapString(ref, "name", func(s string) (string, error) { return m.objectName(rule, s) })
}

// ownerReferences maps metadata.ownerReferences: apiVersions of tenant CRD
// groups and names of cluster-scoped tenant-owned owners.
func (m *mapper) ownerReferences(meta map[string]any) error {
	refs, ok := meta["ownerReferences"].([]any)
	if !ok {
		return nil
	}
	for _, r := range refs {
		ref, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if err := m.objectReference(ref); err != nil {
			return err
		}
	}
	return nil
}

// podSpecRefs are the references of a pod spec found at path.
func podSpecRefs(path string) []Ref {
	priority := sharedNameRef(path, "priorityClassName", grPriorityClass)
	priority.podSpec = true
	return append([]Ref{
		priority,
		sharedNameRef(path, "runtimeClassName", grRuntimeClass),
		podAffinityRef(path), // refs_affinity.go
	}, append(claimSpecRefs(path+".volumes[].ephemeral.volumeClaimTemplate.spec"), podVolumeSourceRefs(path)...)...)
}
