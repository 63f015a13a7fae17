package translate

import (
	"errors"
	"fmt"
)

// MetadataNameLabel is the label the API server puts on every namespace, with
// the namespace's name as value. Its values are namespace names and are
// translated wherever they appear.
const MetadataNameLabel = "kubernetes.io/metadata.name"

// labelSelectorRef maps a metav1.LabelSelector found at path.key: values of
// MetadataNameLabel are namespace names. With confine, a requirement
// TenantLabel In (tenant) is AND-ed in on the way in (and stripped on the way
// out), so that the selector only ever matches the tenant's namespaces. A
// missing selector is created when create is set (for webhooks a missing
// selector means "every namespace").
func labelSelectorRef(path, key string, confine, create bool) Ref {
	field := key
	if path != "" {
		field = path + "." + key
	}
	return Ref{Field: field, Target: TargetSelector, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, path, func(parent map[string]any) error {
			v, present := parent[key]
			sel, ok := v.(map[string]any)
			if !ok {
				if !create || !m.in || (present && v != nil) {
					return nil
				}
				sel = map[string]any{}
				parent[key] = sel
			}
			return m.labelSelector(sel, confine)
		})
	}}
}

func (m *mapper) labelSelector(sel map[string]any, confine bool) error {
	if labels, ok := sel["matchLabels"].(map[string]any); ok {
		if _, set := labels[TenantLabel]; set && m.in {
			return forbidden(grNamespace, "", fmt.Sprintf("selectors may not use the label %s", TenantLabel))
		}
		if v, ok := labels[MetadataNameLabel].(string); ok {
			mapped, err := m.namespace(v)
			if err != nil {
				if !m.in && errors.Is(err, ErrNotTenants) {
					mapped = v
				} else {
					return err
				}
			}
			labels[MetadataNameLabel] = mapped
		}
	}
	exprs, _ := sel["matchExpressions"].([]any)
	out := exprs[:0]
	for _, e := range exprs {
		expr, ok := e.(map[string]any)
		if !ok {
			out = append(out, e)
			continue
		}
		switch str(expr, "key") {
		case TenantLabel:
			if m.in {
				return forbidden(grNamespace, "", fmt.Sprintf("selectors may not use the label %s", TenantLabel))
			}
			if confine {
				continue // the requirement the proxy added
			}
		case MetadataNameLabel:
			if err := m.mapStrings(expr, "values", m.namespace); err != nil {
				return err
			}
		}
		out = append(out, expr)
	}
	if m.in && confine {
		out = append(out, map[string]any{"key": TenantLabel, "operator": "In", "values": []any{m.tenant().Name()}})
	}
	if len(out) > 0 {
		sel["matchExpressions"] = out
	} else if exprs != nil {
		delete(sel, "matchExpressions")
	}
	return nil
}
