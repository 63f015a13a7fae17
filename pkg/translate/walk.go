package translate

import (
	"errors"
	"strings"
)

// walk calls fn for every map found at path in obj. A path is a dot-separated
// list of keys; "[]" after a key iterates the elements of a list. Missing
// fields are skipped, so rules apply equally to whole objects and to partial
// ones (merge patches).
func walk(obj map[string]any, path string, fn func(map[string]any) error) error {
	if path == "" {
		return fn(obj)
	}
	return walkParts(obj, strings.Split(path, "."), fn)
}

func walkParts(obj map[string]any, parts []string, fn func(map[string]any) error) error {
	if len(parts) == 0 {
		return fn(obj)
	}
	key, each := strings.CutSuffix(parts[0], "[]")
	v, ok := obj[key]
	if !ok || v == nil {
		return nil
	}
	if !each {
		child, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		return walkParts(child, parts[1:], fn)
	}
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	for _, item := range list {
		if child, ok := item.(map[string]any); ok {
			if err := walkParts(child, parts[1:], fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// mapString maps the string field key of obj with f. Outbound, a reference
// that is not the tenant's is removed rather than shown.
func (m *mapper) mapString(obj map[string]any, key string, f func(string) (string, error)) error {
	s, ok := obj[key].(string)
	if !ok || s == "" {
		return nil
	}
	out, err := f(s)
	if err != nil {
		if !m.in && errors.Is(err, ErrNotTenants) {
			delete(obj, key)
			return nil
		}
		return err
	}
	obj[key] = out
	return nil
}

// mapStrings maps every string of the list field key of obj with f,
// dropping outbound values that are not the tenant's.
func (m *mapper) mapStrings(obj map[string]any, key string, f func(string) (string, error)) error {
	list, ok := obj[key].([]any)
	if !ok {
		return nil
	}
	out := list[:0]
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			out = append(out, v)
			continue
		}
		mapped, err := f(s)
		if err != nil {
			if !m.in && errors.Is(err, ErrNotTenants) {
				continue
			}
			return err
		}
		out = append(out, mapped)
	}
	obj[key] = out
	return nil
}

// stringField is a Ref that maps one string field at path.key with f.
func stringField(target Target, path, key string, f func(m *mapper, parent map[string]any, v string) (string, error)) Ref {
	field := key
	if path != "" {
		field = path + "." + key
	}
	return Ref{Field: field, Target: target, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, path, func(parent map[string]any) error {
			return m.mapString(parent, key, func(s string) (string, error) { return f(m, parent, s) })
		})
	}}
}

// splitField splits a field path into the path of its parent and its key
// ("spec.claimRef" → "spec", "claimRef"; "involvedObject" → "", itself).
func splitField(path string) (parent, key string) {
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

// atPath is a Ref that applies f to every map found at path.
func atPath(target Target, path string, f func(m *mapper, obj map[string]any) error) Ref {
	return Ref{Field: path, Target: target, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, path, func(child map[string]any) error { return f(m, child) })
	}}
}

func str(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	return s
}

func child(obj map[string]any, key string) map[string]any {
	c, _ := obj[key].(map[string]any)
	return c
}

func ensureChild(obj map[string]any, key string) map[string]any {
	c, ok := obj[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		obj[key] = c
	}
	return c
}
