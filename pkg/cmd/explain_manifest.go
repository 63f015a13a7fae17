package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// manifestObject is one object of a manifest, before and after translation.
type manifestObject struct {
	// Where names the object in messages: "file.yaml: document 2".
	Where string
	// Before is the object as read (with a defaulted namespace filled in).
	Before map[string]any
	// After is the translated object.
	After map[string]any
	// Tenant is the tenant the object was translated for.
	Tenant string
	// Changes are the fields translation changed.
	Changes []fieldChange
	// DefaultedNamespace is set when the namespace came from -n.
	DefaultedNamespace bool
}

// readManifests reads every object of the files (or "-" for in, or a
// directory's .yaml, .yml and .json files). Lists are flattened.
func readManifests(paths []string, in io.Reader) ([]manifestObject, error) {
	var objs []manifestObject
	for _, path := range paths {
		files, err := expandPath(path)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			var r io.Reader = in
			name := "stdin"
			if file != "-" {
				data, err := os.ReadFile(file)
				if err != nil {
					return nil, fmt.Errorf("reading manifest: %w", err)
				}
				r, name = bytes.NewReader(data), file
			}
			got, err := decodeManifest(name, r)
			if err != nil {
				return nil, err
			}
			objs = append(objs, got...)
		}
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("no objects in %s", strings.Join(paths, ", "))
	}
	return objs, nil
}

func expandPath(path string) ([]string, error) {
	if path == "-" {
		return []string{path}, nil
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the path %q does not exist", path)
	} else if err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("reading manifest directory: %w", err)
	}
	var files []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	slices.Sort(files)
	return files, nil
}

// decodeManifest decodes a multi-document YAML or JSON stream.
func decodeManifest(name string, r io.Reader) ([]manifestObject, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var objs []manifestObject
	for doc := 1; ; doc++ {
		where := fmt.Sprintf("%s: document %d", name, doc)
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: malformed YAML or JSON: %s", where, oneLine(err.Error()))
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			doc--
			continue
		}
		var obj map[string]any
		jd := json.NewDecoder(bytes.NewReader(raw))
		jd.UseNumber()
		if err := jd.Decode(&obj); err != nil {
			return nil, fmt.Errorf("%s: not a Kubernetes object (a mapping with apiVersion and kind)", where)
		}
		items, isList := obj["items"].([]any)
		if kind, _ := obj["kind"].(string); isList && strings.HasSuffix(kind, "List") {
			for i, item := range items {
				m, ok := item.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s: items[%d] is not an object", where, i)
				}
				objs = append(objs, manifestObject{Where: fmt.Sprintf("%s, items[%d]", where, i), Before: m})
			}
			continue
		}
		objs = append(objs, manifestObject{Where: where, Before: obj})
	}
}

// oneLine joins a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// manifestTranslator translates manifest objects in one direction.
type manifestTranslator struct {
	tenant        *translate.Tenant
	reverse       bool
	namespace     string
	clusterScoped bool
}

// translate fills in o.After, o.Tenant and o.Changes.
func (mt manifestTranslator) translate(o *manifestObject) error {
	apiVersion, _ := o.Before["apiVersion"].(string)
	kind, _ := o.Before["kind"].(string)
	if apiVersion == "" || kind == "" {
		return fmt.Errorf("%s: object has no apiVersion or kind", o.Where)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return fmt.Errorf("%s: invalid apiVersion %q", o.Where, apiVersion)
	}
	gr, namespaced, err := manifestResource(gv, kind, mt.clusterScoped)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Where, err)
	}
	meta, _ := o.Before["metadata"].(map[string]any)
	if meta == nil {
		return fmt.Errorf("%s: %s has no metadata", o.Where, kind)
	}
	if ns, _ := meta["namespace"].(string); namespaced && ns == "" {
		meta["namespace"] = mt.namespace
		o.DefaultedNamespace = true
	}
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if name == "" {
		name, _ = meta["generateName"].(string)
	}
	o.Where = fmt.Sprintf("%s (%s %s)", o.Where, kind, strings.TrimPrefix(ns+"/"+name, "/"))

	tenant := mt.tenant
	if mt.reverse {
		owner, ok := objectOwner(gv.Group, meta, namespaced, kind)
		switch {
		case !ok && tenant == nil:
			return fmt.Errorf("%s: belongs to no tenant (no tenant's prefix in its name, namespace or API group)", o.Where)
		case ok && tenant != nil && owner != *tenant:
			return fmt.Errorf("%s: not tenant %s's: it belongs to tenant %s", o.Where, tenant.Name(), owner.Name())
		case tenant == nil:
			tenant = &owner
		}
	}
	o.Tenant = tenant.Name()
	o.After = deepCopyJSON(o.Before).(map[string]any)
	tr := translate.New(*tenant, translate.Options{})
	if mt.reverse {
		err = tr.ObjectToTenant(gr, o.After)
	} else {
		err = tr.ObjectToUpstream(gr, o.After)
	}
	if mt.reverse && translate.IsNotTenants(err) {
		return fmt.Errorf("%s: not tenant %s's", o.Where, tenant.Name())
	}
	if err != nil {
		return fmt.Errorf("%s: %s", o.Where, oneLine(err.Error()))
	}
	diffValues(nil, o.Before, o.After, &o.Changes)
	return nil
}

// manifestResource finds the resource of a manifest object and whether it is
// namespaced: from the kinds table, else as a custom resource (plural guessed
// from the kind, used in messages only).
func manifestResource(gv schema.GroupVersion, kind string, clusterScoped bool) (schema.GroupResource, bool, error) {
	if rule, ok := translate.LookupKindByKind(schema.GroupKind{Group: gv.Group, Kind: kind}); ok {
		return rule.Resource, rule.Treatment == translate.Namespaced, nil
	}
	if translate.IsSharedGroup(gv.Group) {
		return schema.GroupResource{}, false, fmt.Errorf("unknown kind %q in API version %q", kind, gv.String())
	}
	return schema.GroupResource{Group: gv.Group, Resource: strings.ToLower(kind) + "s"}, !clusterScoped, nil
}

// objectOwner finds the tenant of an upstream object: its tenant label, else
// the prefix of its namespace, API group or name.
func objectOwner(group string, meta map[string]any, namespaced bool, kind string) (translate.Tenant, bool) {
	if labels, ok := meta["labels"].(map[string]any); ok {
		if v, ok := labels[translate.TenantLabel].(string); ok {
			t, err := translate.NewTenant(v)
			return t, err == nil
		}
	}
	var part string
	switch ns, _ := meta["namespace"].(string); {
	case namespaced && ns != "":
		part = ns
	case !translate.IsBuiltinGroup(group):
		part = group
	case kind == "CustomResourceDefinition":
		name, _ := meta["name"].(string)
		_, part, _ = strings.Cut(name, ".")
	default:
		part, _ = meta["name"].(string)
	}
	t, _, ok := translate.SplitUpstreamName(part)
	return t, ok
}

func deepCopyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopyJSON(e)
		}
		return out
	}
	return v
}
