package translate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// discoveryOut rewrites discovery documents: APIGroupList, APIGroup,
// APIResourceList and aggregated APIGroupDiscoveryList. Tenant CRD groups are
// shown unprefixed, other tenants' and the cluster's own CRD groups are
// dropped, built-in groups stay, Hidden resources disappear.
func (t *Translator) discoveryOut(doc map[string]any) error {
	switch str(doc, "kind") {
	case "APIGroupList":
		doc["groups"] = t.filterGroups(doc["groups"], t.apiGroupOut)
	case "APIGroup":
		if !t.apiGroupOut(doc) {
			return notFound(schema.GroupResource{}, str(doc, "name"))
		}
	case "APIResourceList":
		gv := str(doc, "groupVersion")
		local, ok := t.tenant.TenantAPIVersion(gv)
		if !ok {
			return notFound(schema.GroupResource{}, gv)
		}
		doc["groupVersion"] = local
		doc["resources"] = t.filterResources(groupOf(local), doc["resources"], "name", nil)
	case "APIGroupDiscoveryList":
		doc["items"] = t.filterGroups(doc["items"], t.aggregatedGroupOut)
	}
	return nil
}

func (t *Translator) filterGroups(v any, keep func(map[string]any) bool) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, g := range list {
		if group, ok := g.(map[string]any); ok && keep(group) {
			out = append(out, group)
		}
	}
	return out
}

// apiGroupOut maps an APIGroup; false when the group is not visible.
func (t *Translator) apiGroupOut(g map[string]any) bool {
	name, ok := t.tenant.TenantAPIGroup(str(g, "name"))
	if !ok {
		return false
	}
	g["name"] = name
	versions, _ := g["versions"].([]any)
	for _, v := range versions {
		if ver, ok := v.(map[string]any); ok {
			t.groupVersionOut(ver)
		}
	}
	if pv := child(g, "preferredVersion"); pv != nil {
		t.groupVersionOut(pv)
	}
	return true
}

func (t *Translator) groupVersionOut(v map[string]any) {
	if local, ok := t.tenant.TenantAPIVersion(str(v, "groupVersion")); ok {
		v["groupVersion"] = local
	}
}

// aggregatedGroupOut maps one apidiscovery.k8s.io/v2 APIGroupDiscovery.
func (t *Translator) aggregatedGroupOut(g map[string]any) bool {
	meta := child(g, "metadata")
	name, ok := t.tenant.TenantAPIGroup(str(meta, "name"))
	if !ok {
		return false
	}
	if meta != nil {
		meta["name"] = name
	}
	versions, _ := g["versions"].([]any)
	for _, v := range versions {
		ver, ok := v.(map[string]any)
		if !ok {
			continue
		}
		ver["resources"] = t.filterResources(name, ver["resources"], "resource", func(res map[string]any) {
			t.responseKindOut(child(res, "responseKind"))
			subs, _ := res["subresources"].([]any)
			for _, s := range subs {
				if sub, ok := s.(map[string]any); ok {
					t.responseKindOut(child(sub, "responseKind"))
				}
			}
		})
	}
	return true
}

func (t *Translator) responseKindOut(rk map[string]any) {
	if rk == nil {
		return
	}
	if local, ok := t.tenant.TenantAPIGroup(str(rk, "group")); ok {
		rk["group"] = local
	}
}

// filterResources drops Hidden resources (and their subresources) of group.
func (t *Translator) filterResources(group string, v any, nameKey string, each func(map[string]any)) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, r := range list {
		res, ok := r.(map[string]any)
		if !ok {
			continue
		}
		name := str(res, nameKey)
		base := name
		for i := 0; i < len(name); i++ {
			if name[i] == '/' {
				base = name[:i]
				break
			}
		}
		if rule, ok := kindsByResource[schema.GroupResource{Group: group, Resource: base}]; ok && rule.Treatment == Hidden {
			continue
		}
		if g, ok := res["group"].(string); ok {
			if local, ok := t.tenant.TenantAPIGroup(g); ok {
				res["group"] = local
			}
		}
		if each != nil {
			each(res)
		}
		out = append(out, res)
	}
	return out
}
