package openapisnap

import (
	"fmt"
	"strings"
)

// Doc is one group-version's OpenAPI v3 document, as decoded from JSON.
type Doc map[string]any

func (d Doc) schemas() map[string]any {
	comps, _ := d["components"].(map[string]any)
	s, _ := comps["schemas"].(map[string]any)
	return s
}

// KindSchema finds the definition of group/version/kind in the document.
func (d Doc) KindSchema(group, version, kind string) (string, bool) {
	for name, s := range d.schemas() {
		gvks, _ := s.(map[string]any)["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			if gvk["group"] == group && gvk["version"] == version && gvk["kind"] == kind {
				return name, true
			}
		}
	}
	return "", false
}

// WalkKind returns the reference-like fields (Flag) of the kind whose
// definition is def, each with the one version given. A definition that
// contains itself (a CRD's JSONSchemaProps) is walked once on each path.
func (d Doc) WalkKind(kind, def, version string) ([]Field, error) {
	w := &walker{schemas: d.schemas(), kind: kind, version: version, onPath: map[string]bool{}}
	if _, ok := w.schemas[def]; !ok {
		return nil, fmt.Errorf("definition %s of %s is not in the document", def, kind)
	}
	w.walkDef(def, "")
	return w.out, w.err
}

type walker struct {
	schemas map[string]any
	kind    string
	version string
	onPath  map[string]bool
	out     []Field
	err     error
}

// refName resolves a schema to the definition it refers to, directly or
// through a one-element allOf (how the v3 documents attach a default).
func refName(s map[string]any) string {
	if r, ok := s["$ref"].(string); ok {
		return strings.TrimPrefix(r, "#/components/schemas/")
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		if one, ok := all[0].(map[string]any); ok {
			return refName(one)
		}
	}
	return ""
}

// shortDef names a definition without its package and version
// ("io.k8s.api.core.v1.PodSpec" → "core.PodSpec").
func shortDef(def string) string {
	parts := strings.Split(def, ".")
	if len(parts) < 3 {
		return def
	}
	return parts[len(parts)-3] + "." + parts[len(parts)-1]
}

func (w *walker) walkDef(def, path string) {
	if w.onPath[def] {
		return
	}
	s, ok := w.schemas[def].(map[string]any)
	if !ok {
		w.err = fmt.Errorf("%s: definition %s is missing", w.kind, def)
		return
	}
	w.onPath[def] = true
	defer delete(w.onPath, def)
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		prop, _ := p.(map[string]any)
		fieldPath := name
		if path != "" {
			fieldPath = path + "." + name
		}
		w.walkProp(shortDef(def)+"."+name, name, fieldPath, prop)
	}
}

// walkProp records the property if it is flagged and walks into its type.
func (w *walker) walkProp(def, name, path string, prop map[string]any) {
	typ, inner, innerPath := w.describe(prop, path)
	format, _ := prop["format"].(string)
	if format == "" {
		format = "-"
	}
	if Flag(name, format, strings.TrimLeft(typ, "[]"), shortDef(inner)) != "" {
		w.out = append(w.out, Field{Kind: w.kind, Path: path, Def: def, Type: typ, Format: format, Versions: []string{w.version}})
	}
	if inner != "" {
		w.walkDef(inner, innerPath)
	}
}

// describe names a property's type and returns the definition to walk into
// and the path its fields hang from.
func (w *walker) describe(prop map[string]any, path string) (typ, inner, innerPath string) {
	if r := refName(prop); r != "" {
		return shortDef(r), r, path
	}
	switch t, _ := prop["type"].(string); t {
	case "array":
		items, _ := prop["items"].(map[string]any)
		it, in, ip := w.describe(items, path+"[]")
		return "[]" + it, in, orPath(ip, path+"[]")
	case "object":
		if ap, ok := prop["additionalProperties"].(map[string]any); ok {
			vt, in, ip := w.describe(ap, path+".*")
			return "map[" + vt + "]", in, orPath(ip, path+".*")
		}
		return "object", "", ""
	case "":
		return "any", "", ""
	default:
		return t, "", ""
	}
}

func orPath(p, or string) string {
	if p == "" {
		return or
	}
	return p
}
