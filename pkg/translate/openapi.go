package translate

import (
	"strings"
)

// openAPIOut rewrites an OpenAPI v2 document, a v3 index or a v3 group/version
// document: paths of tenant CRD groups are shown unprefixed, those of other
// tenants' (and the cluster's own CRD groups) dropped; definitions/schemas of
// tenant kinds are renamed (with every $ref to them) and others' dropped.
func (t *Translator) openAPIOut(doc map[string]any) error {
	if paths := child(doc, "paths"); paths != nil {
		// Keys are renamed in place: iterate over a snapshot, or a renamed
		// key may be visited again (and, unprefixed, dropped).
		keys := make([]string, 0, len(paths))
		for key := range paths {
			keys = append(keys, key)
		}
		for _, key := range keys {
			v := paths[key]
			newKey, ok := t.openAPIPath(key)
			if !ok {
				delete(paths, key)
				continue
			}
			if entry, ok := v.(map[string]any); ok {
				if u := str(entry, "serverRelativeURL"); u != "" {
					if mapped, ok := t.openAPIPath(u); ok {
						entry["serverRelativeURL"] = mapped
					}
				}
			}
			if newKey != key {
				delete(paths, key)
				paths[newKey] = v
			}
		}
	}
	renames := map[string]string{}
	for _, defs := range []map[string]any{child(doc, "definitions"), child(child(doc, "components"), "schemas")} {
		t.renameDefinitions(defs, renames)
	}
	t.walkOpenAPI(doc, renames)
	return nil
}

// openAPIPath maps a path (or v3 index key / URL) that contains
// "apis/<group>/"; ok is false when the group is not the tenant's.
func (t *Translator) openAPIPath(p string) (string, bool) {
	i := strings.Index(p, "apis/")
	if i < 0 {
		return p, true
	}
	rest := p[i+len("apis/"):]
	group, tail, _ := strings.Cut(rest, "/")
	if q := strings.IndexByte(group, '?'); q >= 0 {
		group, tail = group[:q], group[q:]+tail
	}
	local, ok := t.tenant.TenantAPIGroup(group)
	if !ok {
		return "", false
	}
	sep := "/"
	if tail == "" || strings.HasPrefix(tail, "?") {
		sep = ""
	}
	return p[:i] + "apis/" + local + sep + tail, true
}

// reverseGroup turns "stable.example.com" into "com.example.stable", the
// form OpenAPI definition names use.
func reverseGroup(g string) string {
	parts := strings.Split(g, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

// renameDefinitions renames definitions of tenant CRD kinds, drops those of
// other groups that are not visible and records the renames. A definition
// that several groups share (meta/v1's DeleteOptions and WatchEvent list
// every group, another tenant's and the platform's CRD groups included)
// keeps the groups the tenant sees and loses the others; one that only
// groups the tenant does not see use is dropped.
func (t *Translator) renameDefinitions(defs map[string]any, renames map[string]string) {
	for name, v := range defs {
		def, ok := v.(map[string]any)
		if !ok {
			continue
		}
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		if len(gvks) == 0 {
			continue
		}
		kept, seen := make([]any, 0, len(gvks)), false
		for _, g := range gvks {
			gvk, ok := g.(map[string]any)
			if !ok {
				kept = append(kept, g) // not a group: as it came
				continue
			}
			up := str(gvk, "group")
			local, ok := t.tenant.TenantAPIGroup(up)
			if !ok {
				continue
			}
			kept, seen = append(kept, gvk), true
			if local == up {
				continue
			}
			if rest, ok := strings.CutPrefix(name, reverseGroup(up)+"."); ok {
				renames[name] = reverseGroup(local) + "." + rest
			}
		}
		if !seen && len(kept) < len(gvks) {
			delete(defs, name)
			continue
		}
		def["x-kubernetes-group-version-kind"] = kept
	}
	for old, renamed := range renames {
		if v, ok := defs[old]; ok {
			delete(defs, old)
			defs[renamed] = v
		}
	}
}

// walkOpenAPI maps x-kubernetes-group-version-kind groups and $refs.
func (t *Translator) walkOpenAPI(v any, renames map[string]string) {
	switch n := v.(type) {
	case map[string]any:
		for k, c := range n {
			switch k {
			case "$ref":
				if ref, ok := c.(string); ok {
					i := strings.LastIndexByte(ref, '/')
					if renamed, ok := renames[ref[i+1:]]; ok {
						n[k] = ref[:i+1] + renamed
					}
				}
			case "x-kubernetes-group-version-kind":
				// An array on schemas, a single object on path operations.
				gvks, _ := c.([]any)
				if one, ok := c.(map[string]any); ok {
					gvks = []any{one}
				}
				for _, g := range gvks {
					if gvk, ok := g.(map[string]any); ok {
						if local, ok := t.tenant.TenantAPIGroup(str(gvk, "group")); ok {
							gvk["group"] = local
						}
					}
				}
			default:
				t.walkOpenAPI(c, renames)
			}
		}
	case []any:
		for _, c := range n {
			t.walkOpenAPI(c, renames)
		}
	}
}
